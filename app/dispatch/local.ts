// The local dispatcher runs each step attempt through the action's real entry (the committed
// bundle, as on GitHub's runners) in a child process, with the result-file reporter and the local
// forge. Each attempt has its own folder, so a crash of the driving process loses nothing: a
// result written after it died is found, and a leftover process is stopped before a re-dispatch.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, openSync, closeSync, readFileSync, writeFileSync, renameSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { stepResultSchema, describeIssues, type StepPayload } from '../../core/wire.ts';
import type { AttemptOutcome, Dispatcher } from './port.ts';

export const ACTION_ENTRY = fileURLToPath(new URL('../../action/dist/index.js', import.meta.url));

export interface LocalDispatcherOptions {
  /** Folder for attempt folders (payload, result, pid, log). */
  stateDir: string;
  /** Folder of bare repositories: owner/name is <remotes>/owner/name.git. */
  remotes: string;
  actionEntry?: string;
}

/** Variables a step process must never inherit from whoever started `conveyor`. */
const SECRET_NAME = /TOKEN|SECRET|PASSWORD|PRIVATE_KEY|CREDENTIAL/i;

export function attemptDir(stateDir: string, p: Pick<StepPayload, 'runId' | 'step' | 'mode' | 'attempt' | 'epoch'>): string {
  return join(stateDir, 'attempts', p.runId, `${p.step.id}.${p.mode}.${p.attempt}.${p.epoch}`);
}

export function createLocalDispatcher(options: LocalDispatcherOptions): Dispatcher {
  const entry = options.actionEntry ?? ACTION_ENTRY;
  return {
    async run(payload) {
      const dir = attemptDir(options.stateDir, payload);
      const known = readResult(dir);
      if (known) return known;
      mkdirSync(dir, { recursive: true });
      writeAtomically(join(dir, 'payload.json'), JSON.stringify(payload));
      const log = openSync(join(dir, 'output.log'), 'a');
      const env: NodeJS.ProcessEnv = {};
      for (const [k, v] of Object.entries(process.env)) if (!SECRET_NAME.test(k)) env[k] = v;
      Object.assign(env, {
        CONVEYOR_PAYLOAD_PATH: join(dir, 'payload.json'),
        CONVEYOR_RESULT_PATH: join(dir, 'result.json'),
        CONVEYOR_WORKSPACE_ROOT: join(dir, 'workspace'),
        GITHUB_SERVER_URL: `file://${options.remotes}`,
      });
      // Its own process group, so that a later `conveyor` can stop a leftover attempt whole.
      const child = spawn(process.execPath, [entry], { env, detached: true, stdio: ['ignore', log, log] });
      closeSync(log);
      writeFileSync(join(dir, 'pid'), String(child.pid ?? ''));
      const code = await new Promise<number | null>((resolve) => {
        child.on('error', () => resolve(-1));
        child.on('exit', (c, signal) => resolve(signal ? null : c));
      });
      return (
        readResult(dir) ?? {
          kind: 'lost',
          reason: `the step process ${code === null ? 'was killed' : `exited with code ${code}`} without reporting a result (log: ${join(dir, 'output.log')})`,
        }
      );
    },
    async recover(payload) {
      const dir = attemptDir(options.stateDir, payload);
      if (!existsSync(dir)) return undefined;
      const known = readResult(dir);
      if (known) return known;
      const pid = Number(readText(join(dir, 'pid')));
      if (pid > 0 && alive(pid)) {
        try {
          process.kill(-pid, 'SIGKILL');
        } catch {
          // Already gone between the check and the kill.
        }
        while (alive(pid)) await new Promise((r) => setTimeout(r, 50));
        // It may have finished in the meantime.
        const late = readResult(dir);
        if (late) return late;
      }
      return { kind: 'lost', reason: 'the process that ran this attempt stopped before it reported' };
    },
  };
}

function readResult(dir: string): AttemptOutcome | undefined {
  const text = readText(join(dir, 'result.json'));
  if (text === undefined) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    return { kind: 'lost', reason: `result file ${join(dir, 'result.json')} is not JSON: ${(e as Error).message}` };
  }
  const parsed = stepResultSchema.safeParse(raw);
  if (!parsed.success) {
    return { kind: 'lost', reason: `result file ${join(dir, 'result.json')} does not match the wire contract: ${describeIssues(parsed.error)}` };
  }
  return { kind: 'result', result: parsed.data };
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function writeAtomically(path: string, text: string): void {
  writeFileSync(`${path}.tmp`, text);
  renameSync(`${path}.tmp`, path);
}
