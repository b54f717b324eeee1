#!/usr/bin/env node
// The demo's scripted reviewer. It looks, read-only, at what the run changed in each repository of
// CONVEYOR_REPOS (git diff against the base branch) and writes a verdict to $CONVEYOR_RESULT_FILE:
// {"verdict":"pass"|"fail","findings":[...],"scores":{"complexity","risk","impact"}}.
// A checkout without its base branch is judged from the diffs in $CONVEYOR_PROMPT_FILE instead.
// It fails a change that is empty, leaves conflict markers or focused tests, or changes a
// repository's code without touching its tests.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';

function fail(message) {
  console.error(`reviewer: ${message}`);
  process.exit(1);
}

const resultFile = process.env.CONVEYOR_RESULT_FILE;
if (!resultFile) fail('CONVEYOR_RESULT_FILE is not set; it must name the file the verdict is written to');
let repos;
try {
  repos = JSON.parse(process.env.CONVEYOR_REPOS ?? '');
} catch {
  fail('CONVEYOR_REPOS must be the JSON list of {repo, dir, role, service} that Conveyor gives agents');
}
if (!Array.isArray(repos)) fail('CONVEYOR_REPOS must be a JSON list');
const workspace = process.env.CONVEYOR_WORKSPACE || process.cwd();

/** The `diff --git` blocks of the prompt file, up to the fence or heading that ends each. */
function promptDiffs() {
  const file = process.env.CONVEYOR_PROMPT_FILE;
  if (!file || !existsSync(file)) return '';
  const kept = [];
  let inDiff = false;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (/^diff --git /.test(line)) inDiff = true;
    else if (/^```|^#{1,6} /.test(line)) inDiff = false;
    if (inDiff) kept.push(line);
  }
  return kept.join('\n');
}

function git(dir, ...args) {
  // --no-optional-locks: a reviewer must not even refresh the index of the checkout it reads.
  return execFileSync('git', ['--no-optional-locks', ...args], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20 });
}

/** The base to diff against: the entry's base if Conveyor gives one, else the usual names. */
function baseRef(dir, entry) {
  const names = entry.base ? [`origin/${entry.base}`, entry.base] : [];
  for (const ref of [...names, 'origin/main', 'main', 'origin/HEAD']) {
    try {
      git(dir, 'rev-parse', '--verify', '--quiet', `${ref}^{commit}`);
      return ref;
    } catch {
      // not this one
    }
  }
  return null;
}

const findings = [];
let changedLines = 0;
let changedRepos = 0;

/** Looks at one diff: counts it and notes what a reviewer would refuse. */
function look(label, diff, repo) {
  const lines = diff.split('\n');
  const files = [...new Set([...diff.matchAll(/^\+\+\+ b\/(.+)$/gm)].map((m) => m[1]))];
  const added = lines.filter((l) => l.startsWith('+') && !l.startsWith('+++'));
  const removed = lines.filter((l) => l.startsWith('-') && !l.startsWith('---'));
  console.log(`reviewer: ${label}: ${files.length} file(s), +${added.length} -${removed.length}`);
  if (!diff.trim()) return;
  changedRepos++;
  changedLines += added.length + removed.length;
  const note = (message) => findings.push({ ...(repo ? { repo } : {}), severity: 'error', message });
  if (added.some((l) => /^\+(<{7}|>{7}|={7})( |$)/.test(l))) note('conflict markers left in the change');
  if (added.some((l) => /\b(test|it|describe)\.only\(/.test(l))) note('a focused test (.only) would skip the others');
  const code = files.filter((f) => /\.(m?js|ts)$/.test(f) && !/(^|\/)test\//.test(f) && !f.startsWith('scripts/'));
  if (code.length && !files.some((f) => /(^|\/)test\//.test(f))) note(`code changed (${code.join(', ')}) without a test`);
}

const unbased = [];
for (const entry of repos) {
  const dir = isAbsolute(entry.dir ?? '') ? entry.dir : resolve(workspace, entry.dir ?? '');
  if (!existsSync(join(dir, '.git'))) fail(`${entry.repo}: no git checkout at ${dir}`);
  const base = baseRef(dir, entry);
  if (!base) {
    unbased.push(entry.repo);
    continue;
  }
  // Committed work since the merge base, plus anything left uncommitted.
  look(`${entry.repo} against ${base}`, git(dir, 'diff', `${base}...HEAD`) + git(dir, 'diff', 'HEAD'), entry.repo);
}
if (unbased.length) {
  // A checkout cloned without its base branch: the diffs in the prompt are all there is to read.
  const diff = promptDiffs();
  if (diff) look(`the prompt's diffs (no base branch in ${unbased.join(', ')})`, diff);
  else
    for (const repo of unbased)
      findings.push({ repo, severity: 'error', message: 'no base branch to compare with (tried origin/main, main) and no diff in the prompt' });
}
if (changedRepos === 0) findings.push({ severity: 'error', message: 'the diff is empty: there is nothing to review' });

const round = (x) => Math.round(Math.min(1, x) * 100) / 100;
const verdict = {
  verdict: findings.length ? 'fail' : 'pass',
  findings,
  scores: {
    complexity: round(changedLines / 400),
    risk: round(0.1 * changedRepos + (findings.length ? 0.3 : 0)),
    impact: round(0.2 + 0.2 * changedRepos),
  },
};
writeFileSync(resultFile, `${JSON.stringify(verdict)}\n`);
console.log(`reviewer: ${verdict.verdict}${findings.map((f) => `\n  - ${f.repo ? `${f.repo}: ` : ''}${f.message}`).join('')}`);
