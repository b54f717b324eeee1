// Runs the REAL bundled action entry in a child process, as GitHub's runner does. The bundle is
// built from the current sources once per test file, into a folder of node_modules/.cache (so its
// dynamic import of better-sqlite3 resolves like action/dist's does).
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { stepResultSchema, type StepResult } from '../../core/contract/wire.ts';

const ROOT = resolve(import.meta.dirname, '../..');
let bundled: string | undefined;

/** Builds the bundle for this test process (once) and returns the path of its entry. */
export function actionBundle(): string {
  if (bundled && existsSync(bundled)) return bundled;
  const dir = join(ROOT, 'node_modules', '.cache', 'conveyor-action-test', String(process.pid));
  mkdirSync(dir, { recursive: true });
  // Its files and chunks are ES modules, as action/dist's are by the repository's package.json.
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
  execFileSync(process.execPath, ['scripts/bundle.js', dir], { cwd: ROOT, stdio: 'pipe' });
  bundled = join(dir, 'index.js');
  return bundled;
}

export function removeActionBundle(): void {
  if (bundled) rmSync(resolve(bundled, '..'), { recursive: true, force: true });
  bundled = undefined;
}

export interface ActionRun {
  status: number | null;
  stdout: string;
  stderr: string;
  result: StepResult | undefined;
  /** The result file's raw text. */
  resultText: string;
}

/** Runs the bundled entry with a payload (object or raw text) in the embedded mode's environment. */
export function runAction(options: { payload: unknown; dir: string; env: Record<string, string> }): ActionRun {
  const payloadPath = join(options.dir, 'payload.json');
  const resultPath = join(options.dir, 'result.json');
  writeFileSync(payloadPath, typeof options.payload === 'string' ? options.payload : JSON.stringify(options.payload));
  rmSync(resultPath, { force: true });
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('GITHUB_') && !k.startsWith('CONVEYOR_')) env[k] = v;
  const run = spawnSync(process.execPath, [actionBundle()], {
    env: { ...env, CONVEYOR_PAYLOAD_PATH: payloadPath, CONVEYOR_RESULT_PATH: resultPath, ...options.env },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const resultText = existsSync(resultPath) ? readFileSync(resultPath, 'utf8') : '';
  return {
    status: run.status,
    stdout: run.stdout,
    stderr: run.stderr,
    result: resultText ? stepResultSchema.parse(JSON.parse(resultText)) : undefined,
    resultText,
  };
}

/**
 * runAction without blocking this process: for tests whose own servers (a socket, an endpoint) the
 * step's commands talk to. Resolves `hung` (and kills the step process) when it has not exited
 * within `timeoutMs`.
 */
export async function runActionAsync(options: { payload: unknown; dir: string; env: Record<string, string>; timeoutMs?: number }): Promise<ActionRun | 'hung'> {
  const payloadPath = join(options.dir, 'payload.json');
  const resultPath = join(options.dir, 'result.json');
  writeFileSync(payloadPath, typeof options.payload === 'string' ? options.payload : JSON.stringify(options.payload));
  rmSync(resultPath, { force: true });
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('GITHUB_') && !k.startsWith('CONVEYOR_')) env[k] = v;
  const child = spawn(process.execPath, [actionBundle()], {
    env: { ...env, CONVEYOR_PAYLOAD_PATH: payloadPath, CONVEYOR_RESULT_PATH: resultPath, ...options.env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const status = await Promise.race([
    new Promise<number | null>((r) => child.on('exit', (code) => r(code))),
    new Promise<'hung'>((r) => setTimeout(() => r('hung'), options.timeoutMs ?? 90_000)),
  ]);
  if (status === 'hung') {
    child.kill('SIGKILL');
    return 'hung';
  }
  const resultText = existsSync(resultPath) ? readFileSync(resultPath, 'utf8') : '';
  return { status, stdout, stderr, result: resultText ? stepResultSchema.parse(JSON.parse(resultText)) : undefined, resultText };
}

/** Runs the real action entry (from source through tsx) as GitHub's runner would, asynchronously. */
export function runActionChild(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const base: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (v !== undefined && !k.startsWith('GITHUB_') && !k.startsWith('CONVEYOR_') && !k.startsWith('INPUT_')) base[k] = v;
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'action/src/index.ts')], { env: { ...base, ...env }, cwd: ROOT });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((r) => child.on('close', (code) => r({ code, stdout, stderr })));
}
