// Sealing and then verifying the receipt of a 1 MB step result, against the floor: one
// JSON.stringify of the same result plus one SHA-256 of those bytes. Prints the ratio (target < 2).
//   npx tsx bench/receipt.bench.ts [rounds]
import { createHash } from 'node:crypto';
import { inputsDigest, sealResult, verifyReceipt } from '../core/contract/receipt.ts';
import { WIRE_VERSION, type StepResult } from '../core/contract/wire.ts';
import { makePayload } from '../test/helpers/payload.ts';

const ROUNDS = Number(process.argv[2] ?? 200);

// A large result as a real gate or review produces it: a long Markdown summary (tables and
// command output), failing lines, commits of many repositories, and a review with many findings.
const line = (i: number) => `| acme/service-${i % 40} | \`npm test\` | **failed** (exit 1) | ${(i % 97) / 10} s |  not ok ${i} - formats price \`$12.5\`\n`;
let summary = '';
for (let i = 0; summary.length < 700_000; i++) summary += line(i);
const findings = Array.from({ length: 1500 }, (_, i) => ({
  repo: `acme/service-${i % 40}`,
  file: `src/module-${i}.ts`,
  line: i,
  severity: i % 3 ? 'warning' : 'error',
  message: `the value "${i}" is formatted without its cents; expected two decimals`,
}));
const result: StepResult = {
  version: WIRE_VERSION,
  runId: 'web-42',
  step: 'review',
  mode: 'run',
  attempt: 3,
  epoch: 0,
  conclusion: 'failure',
  summary,
  prs: Array.from({ length: 40 }, (_, i) => ({
    repo: `acme/service-${i}`,
    number: i + 1,
    url: `https://github.com/acme/service-${i}/pull/${i + 1}`,
    branch: 'conveyor/web-42',
    head: 'f'.repeat(40),
  })),
  commits: Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`acme/service-${i}`, `${i}`.padStart(40, 'a')])),
  environments: [],
  review: { verdict: 'fail', findings, scores: { complexity: 0.4, risk: 0.7, impact: 0.5 }, agent: 'reviewer', model: 'openai/gpt-5', independent: true },
  findings: 'x'.repeat(8000),
};
const bytes = Buffer.byteLength(JSON.stringify(result));
const inputs = inputsDigest(makePayload({ repos: [{ repo: 'acme/web' }] }));

function floor(): string {
  return createHash('sha256').update(JSON.stringify(result)).digest('hex');
}
let sealed = sealResult(result, inputs);
function seal(): void {
  sealed = sealResult(result, inputs);
}
function verify(): boolean {
  return verifyReceipt(sealed, inputs);
}

// Warm up all three, then interleave them so a busy machine weighs on each alike.
for (let i = 0; i < 20; i++) {
  floor();
  seal();
  if (!verify()) throw new Error('a sealed result did not verify');
}
let floorMs = 0;
let sealMs = 0;
let verifyMs = 0;
for (let i = 0; i < ROUNDS; i++) {
  let t = performance.now();
  floor();
  floorMs += performance.now() - t;
  t = performance.now();
  seal();
  sealMs += performance.now() - t;
  t = performance.now();
  verify();
  verifyMs += performance.now() - t;
}
const per = (ms: number) => (ms / ROUNDS).toFixed(2);
const sealRatio = sealMs / floorMs;
const verifyRatio = verifyMs / floorMs;
console.log(`result of ${(bytes / 1024 / 1024).toFixed(2)} MB (JSON), ${ROUNDS} rounds`);
console.log(`floor: JSON.stringify + SHA-256 = ${per(floorMs)} ms`);
console.log(`seal a receipt                  = ${per(sealMs)} ms`);
console.log(`verify a receipt                = ${per(verifyMs)} ms`);
console.log(`seal / floor = ${sealRatio.toFixed(2)}x (target < 2)`);
console.log(`verify / floor = ${verifyRatio.toFixed(2)}x (target < 2)`);
// Sealing and verifying happen at different times (the action seals, the engine verifies), and
// each must serialize and hash every byte as the floor does once: together they cannot cost less
// than two floors. Printed for the record, not judged.
console.log(`seal + verify together / floor = ${(sealRatio + verifyRatio).toFixed(2)}x (two full passes; at least 2 by construction)`);
if (sealRatio >= 2 || verifyRatio >= 2) process.exitCode = 1;
