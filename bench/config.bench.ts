// How much validating and compiling a configuration costs over merely parsing its YAML, for a
// large generated configuration (200 services, 100 pipelines). Target: under 3x.
//   npx tsx bench/config.bench.ts
import { parseDocument } from 'yaml';
import { formatConfigError, loadConfig } from '../core/config/load.ts';
import { compilePlan, listPipelines } from '../core/plan/compile.ts';

const SERVICES = 200;
const PIPELINES = 100;
const TARGET = 3;

/** A configuration shaped like real ones: a layered service graph, every step kind, repairs. */
function generate(): string {
  const out: string[] = ['version: 1', '', 'agents:'];
  for (const a of ['coder', 'reviewer', 'author', 'fixer']) {
    out.push(`  ${a}:`, `    run: ./agents/${a}.sh < "$CONVEYOR_PROMPT_FILE"`, `    model: vendor/${a}-model`, '    timeout-minutes: 40');
  }
  out.push('', 'services:');
  for (let i = 0; i < SERVICES; i++) {
    out.push(`  svc${i}:`, `    repo: acme/repo${i % 120}`);
    if (i % 120 !== i) out.push(`    path: services/svc${i}`);
    // Providers come from lower numbers only, so the graph is a DAG with several layers.
    const deps = [i - 1, i - 7, i - 31].filter((d) => d >= 0 && i % 3 !== 0);
    if (deps.length) out.push(`    depends-on: [${deps.map((d) => `svc${d}`).join(', ')}]`);
    if (i % 4 === 0) out.push('    deploy: none');
    else out.push('    deploy:', `      run: ./scripts/preview.sh svc${i}`, '      teardown: ./scripts/down.sh', '      timeout-minutes: 20');
    out.push('    gate: make test');
  }
  out.push('', 'pipelines:');
  for (let p = 0; p < PIPELINES; p++) {
    const own = (p * 2) % SERVICES;
    const involves = [1, 2, 3, 5].map((k) => `svc${(own + k) % SERVICES}`);
    out.push(
      `  pipe${p}:`,
      `    label: conveyor-${p}`,
      `    service: svc${own}`,
      `    involves: [${involves.join(', ')}]`,
      '    steps:',
      '      - { id: implement, kind: code, agent: coder, writes: [src/, test/] }',
      '      - { id: accept, kind: gate, author: author, path: test/accept.test.ts, run: "npm test -- {path}" }',
      '      - { id: unit, kind: gate, run: npm test, needs: [implement], repair: { agent: fixer, max-attempts: 3 } }',
      '      - { id: lint, kind: gate, needs: [implement] }',
      '      - { id: review, kind: review, agent: reviewer, needs: [accept, unit, lint], repair: { agent: coder, max-attempts: 1 } }',
      '      - { id: preview, kind: deploy, needs: [implement] }',
      '      - { id: approve, kind: approval, needs: [review, preview], approvers: [alice, "@acme/leads"], min-approvals: 1 }',
      '      - { id: ship, kind: merge, method: squash }',
    );
  }
  return `${out.join('\n')}\n`;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/**
 * Medians of each task's run times. The tasks take turns inside one loop, so a burst of load from
 * other processes on the machine hits all of them alike instead of skewing one.
 */
function measure(tasks: Record<string, () => void>, iterations: number): Record<string, number> {
  const entries = Object.entries(tasks);
  for (let i = 0; i < 5; i++) for (const [, fn] of entries) fn(); // warm up the JIT
  const times = Object.fromEntries(entries.map(([k]) => [k, [] as number[]]));
  for (let i = 0; i < iterations; i++) {
    for (const [k, fn] of entries) {
      const t = performance.now();
      fn();
      times[k]!.push(performance.now() - t);
    }
  }
  return Object.fromEntries(entries.map(([k]) => [k, median(times[k]!)]));
}

const text = generate();
const first = loadConfig(text, 'bench.yml');
if (!first.ok) {
  console.error(first.errors.slice(0, 10).map(formatConfigError).join('\n'));
  throw new Error('the generated configuration is not valid');
}
const pipelines = listPipelines(first.config);
if (pipelines.length !== PIPELINES || Object.keys(first.config.services).length !== SERVICES) throw new Error('generator is off');

const iterations = Number(process.env.BENCH_ITERATIONS ?? 40);
let sink = 0;
const { parse, load, compile, total } = measure(
  {
    parse: () => {
      sink += parseDocument(text).contents ? 1 : 0;
    },
    load: () => {
      sink += loadConfig(text, 'bench.yml').ok ? 1 : 0;
    },
    compile: () => {
      for (const p of pipelines) sink += compilePlan(first.config, p).steps.length;
    },
    total: () => {
      const r = loadConfig(text, 'bench.yml');
      if (!r.ok) throw new Error('invalid');
      for (const p of pipelines) sink += compilePlan(r.config, p).steps.length;
    },
  },
  iterations,
) as { parse: number; load: number; compile: number; total: number };

const ratio = total / parse;
const ms = (x: number) => `${x.toFixed(2)} ms`;
console.log(`configuration: ${SERVICES} services, ${PIPELINES} pipelines, ${text.length} bytes, ${text.split('\n').length} lines`);
console.log(`medians of ${iterations} runs:`);
console.log(`  parse YAML (parseDocument)      ${ms(parse)}`);
console.log(`  validate (loadConfig)           ${ms(load)}   (includes its own parse)`);
console.log(`  compile all ${PIPELINES} pipelines      ${ms(compile)}`);
console.log(`  validate + compile              ${ms(total)}`);
console.log(`validate+compile / parse = ${ratio.toFixed(2)}x (target < ${TARGET}x) ${ratio < TARGET ? 'OK' : 'OVER'}`);
if (sink < 0) console.log(sink);
process.exitCode = ratio < TARGET ? 0 : 1;
