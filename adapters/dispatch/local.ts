// The local dispatcher runs each step attempt through the action's real entry in a child process,
// with the result-file reporter and the local forge: from the action's sources in a clone of
// Conveyor, from its bundle when Conveyor is installed (see actionCommand). Each attempt has its
// own folder (payload, result, output.log, transcript.log), so a crash of the driving process
// loses nothing: a result written after it died is found, and a leftover process is stopped
// before a re-dispatch.
import { spawn } from 'node:child_process';
import { LRUCache } from 'lru-cache';
import { existsSync, mkdirSync, openSync, closeSync, readFileSync, readSync, fstatSync, writeFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { environmentSchema, stepResultSchema, describeIssues, type Environment, type StepPayload } from '../../core/contract/wire.ts';
import type { AttemptOutcome, Dispatcher } from '../../engine/ports/dispatcher.ts';
import { isSecretName, Scrubber } from '../../lib/secrets.ts';
import { attemptSecretNames, byNameOf } from '../../core/contract/attempt.ts';
import { attemptFolder, refOf, type AttemptRef } from '../../core/contract/attempt-ref.ts';
import { isGitHubTokenName } from '../../core/config/secret-names.ts';
import { killGroup, processAlive } from '../../lib/process.ts';
import { describeWriteFailure } from '../../lib/fs-errors.ts';
import { ConveyorError } from '../../core/errors.ts';

/** Conveyor's own folder (package.json, action/, and .git in a clone). */
export const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The action's bundle, as GitHub's runners run it (action.yml). */
export const ACTION_ENTRY = join(PACKAGE_ROOT, 'action/dist/index.js');

/** How a step process starts: node's arguments, and whether they run the action's sources or its bundle. */
export interface ActionCommand {
  from: 'sources' | 'bundle';
  args: string[];
  /** Where it starts: the sources run in the package's folder, where tsx finds the package's tsconfig.json (not the one of wherever `conveyor` was started). */
  cwd?: string;
}

/**
 * The action a step process runs, so that in a clone the code that runs is the code that is there
 * (no `npm run bundle` between a change and `conveyor run`), and an installed Conveyor runs the
 * bundle GitHub's runners run. The rule: the package at `root` is a clone when it holds `.git` (a
 * folder, or the file a git worktree has) and action/src/index.ts, and tsx resolves from it; a
 * clone runs `node --import tsx action/src/index.ts`, anything else action/dist/index.js. (npm
 * installs a package without its .git, whatever else of it comes along.)
 */
export function actionCommand(root: string = PACKAGE_ROOT): ActionCommand {
  const sources = join(root, 'action/src/index.ts');
  if (existsSync(join(root, '.git')) && existsSync(sources)) {
    let tsx: string | undefined;
    try {
      tsx = createRequire(join(root, 'package.json')).resolve('tsx');
    } catch {
      // Its dependencies are not installed: the bundle needs none of them to start.
    }
    if (tsx) return { from: 'sources', args: ['--import', pathToFileURL(tsx).href, sources], cwd: root };
  }
  return { from: 'bundle', args: [join(root, 'action/dist/index.js')] };
}

export type LocalDispatcherOptions = (
  | {
      /** Folder whose `attempts/` holds the attempt folders (payload, result, pid, log). */
      stateDir: string;
    }
  | {
      /** The folder of the attempt folders itself: one of its own per state database (cli/embedded.ts). */
      attemptsDir: string;
    }
) & {
  /** The state database, which the step's commands must not reach (the sandbox hides it). */
  statePath?: string;
  /** Folder of bare repositories: owner/name is <remotes>/owner/name.git. */
  remotes: string;
  /** Conveyor's folder, whose action the step processes run (actionCommand); default this one. */
  packageRoot?: string;
  /** A script to run instead of the action (tests' stand-ins). */
  actionEntry?: string;
};

/** Where the state keeps every attempt's folder (attemptFolder); the sandbox hides it from the step's commands. */
function attemptsDirOf(options: LocalDispatcherOptions): string {
  return 'attemptsDir' in options ? options.attemptsDir : join(options.stateDir, 'attempts');
}

/** What the command line shows of an attempt while it runs: where its log is, what it printed last, its process. */
export interface AttemptView {
  /** Its output.log (every line the step process and its commands printed, scrubbed by the step process). */
  log: string;
  /** The last line it printed, scrubbed again here (see view), cut to a line's length; absent before it printed any. */
  lastLine?: string;
}

export interface LocalDispatcher extends Dispatcher {
  view(ref: AttemptRef): AttemptView;
  /** The attempt's step process (its own process group), while its pid file names one that is alive. */
  pid(ref: AttemptRef): number | undefined;
}

export function createLocalDispatcher(options: LocalDispatcherOptions): LocalDispatcher {
  const command: ActionCommand = options.actionEntry ? { from: 'bundle', args: [options.actionEntry] } : actionCommand(options.packageRoot);
  const attempts = attemptsDirOf(options);
  const dirOf = (ref: AttemptRef) => join(attempts, attemptFolder(ref));
  return {
    async run(payload, hooks) {
      const dir = dirOf(refOf(payload));
      const known = readResult(dir);
      if (known) return known;
      const log = prepareFolder(dir, payload);
      const env: NodeJS.ProcessEnv = {};
      // A step process inherits from whoever started `conveyor` no secret but those its attempt's
      // commands list by name (its agent's, or its deploys' and teardowns'), and never a GitHub
      // token: the sandbox keeps the step process's environment out of its commands' reach.
      const passed = new Set(attemptSecretNames(payload));
      const listed = byNameOf(payload);
      for (const [k, v] of Object.entries(process.env)) if (passed.has(k) || (!isSecretName(k) && !listed.has(k))) env[k] = v;
      // The others' values only to mask them, should a command print one: in a file it reads once and deletes (action/src/masks.ts).
      const masks = [...listed].filter((k) => !passed.has(k) && !isGitHubTokenName(k)).flatMap((k) => (process.env[k] ? [process.env[k]] : []));
      if (masks.length) {
        writing(dir, () => writeAtomically(join(dir, 'masks.json'), JSON.stringify(masks), 0o600));
        env.CONVEYOR_MASKS_PATH = join(dir, 'masks.json');
      }
      Object.assign(env, {
        CONVEYOR_PAYLOAD_PATH: join(dir, 'payload.json'),
        CONVEYOR_RESULT_PATH: join(dir, 'result.json'),
        // Every line its agent printed, scrubbed (action/src/transcript.ts).
        CONVEYOR_TRANSCRIPT_PATH: join(dir, 'transcript.log'),
        CONVEYOR_WORKSPACE_ROOT: join(dir, 'workspace'),
        // Each settled environment of a deploy is appended here as it settles (see readProgress).
        CONVEYOR_PROGRESS_PATH: join(dir, 'progress.jsonl'),
        // What the sandbox hides from the step's commands: every attempt's files and the database.
        CONVEYOR_ATTEMPTS_DIR: attempts,
        ...(options.statePath ? { CONVEYOR_STATE_DB: options.statePath } : {}),
        GITHUB_SERVER_URL: `file://${options.remotes}`,
      });
      // Its own process group, so that a later `conveyor` can stop a leftover attempt whole.
      const child = spawn(process.execPath, command.args, {
        env,
        detached: true,
        stdio: ['ignore', log, log],
        ...(command.cwd ? { cwd: command.cwd } : {}),
      });
      closeSync(log);
      // Whichever `conveyor` process carries out a stop of the attempt finds it here.
      try {
        writing(dir, () => writeFileSync(join(dir, 'pid'), String(child.pid ?? '')));
      } catch (e) {
        // A step process no later `conveyor` could find must not go on.
        if (child.pid) killGroup(child.pid, 'SIGKILL');
        throw e;
      }
      const watch = hooks?.onEnvironments ? watchProgress(dir, hooks.onEnvironments) : undefined;
      const code = await new Promise<number | null>((resolve) => {
        child.on('error', () => resolve(-1));
        child.on('exit', (c, signal) => resolve(signal ? null : c));
      });
      watch?.stop();
      return (
        readResult(dir) ?? {
          kind: 'lost',
          reason: `the step process ${code === null ? 'was killed' : `exited with code ${code}`} without reporting a result (log: ${join(dir, 'output.log')})`,
          ...settledSoFar(dir),
        }
      );
    },
    async recover(payload) {
      const dir = dirOf(refOf(payload));
      if (!existsSync(dir)) return undefined;
      const known = readResult(dir);
      if (known) return known;
      const pid = Number(readText(join(dir, 'pid')));
      if (pid > 0 && processAlive(pid)) {
        // SIGTERM first: the step process stops the commands it started (their own process
        // groups), then its own group is killed whatever it did.
        await stopStepProcess(pid);
        // It may have finished in the meantime.
        const late = readResult(dir);
        if (late) return late;
      }
      return { kind: 'lost', reason: 'the process that ran this attempt stopped before it reported', ...settledSoFar(dir) };
    },
    /**
     * The step process scrubs what it writes to output.log; the last line is scrubbed once more
     * here with the secrets this process holds (the runner's secret-named variables and those the
     * run's commands are given by name), so the terminal never shows one whatever wrote the log.
     */
    view(ref) {
      const dir = dirOf(ref);
      const log = join(dir, 'output.log');
      const last = lastLine(log);
      const scrubbed = last === undefined ? undefined : scrubberOf(dir).scrub(last);
      return { log, ...(scrubbed ? { lastLine: clipLine(scrubbed) } : {}) };
    },
    pid(ref) {
      const pid = Number(readText(join(dirOf(ref), 'pid')));
      return pid > 0 && processAlive(pid) ? pid : undefined;
    },
    /** By the pid its folder keeps: the process that started it may be another (a cancel by another command). */
    async stop(ref) {
      const pid = Number(readText(join(dirOf(ref), 'pid')));
      // Its `run` then ends as lost, with what it had settled.
      if (pid > 0 && processAlive(pid)) await stopStepProcess(pid);
    },
  };
}

/**
 * SIGTERM first: the step process stops the commands it started (their own process groups), then
 * its own group is killed whatever it did.
 */
async function stopStepProcess(pid: number): Promise<void> {
  killGroup(pid, 'SIGTERM');
  for (let waited = 0; processAlive(pid) && waited < STOP_GRACE_MS; waited += 50) await new Promise((r) => setTimeout(r, 50));
  killGroup(pid, 'SIGKILL');
  while (processAlive(pid)) await new Promise((r) => setTimeout(r, 50));
}

/** The environments a deploy attempt reported as settled, latest per service; unreadable lines are skipped
 * (a line cut short by a kill is the only way to get one). */
export function readProgress(dir: string): Environment[] {
  return parseProgress(readText(join(dir, 'progress.jsonl')) ?? '');
}

function parseProgress(text: string): Environment[] {
  const latest = new Map<string, Environment>();
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      const parsed = environmentSchema.safeParse((JSON.parse(line) as { environment?: unknown }).environment);
      if (parsed.success) latest.set(parsed.data.service, parsed.data);
    } catch {
      // A partial last line.
    }
  }
  return [...latest.values()];
}

function settledSoFar(dir: string): { environments?: Environment[] } {
  const environments = readProgress(dir);
  return environments.length ? { environments } : {};
}

/** Hands each newly settled environment to `on` while the attempt runs (polled: cheap and portable). */
function watchProgress(dir: string, on: (environments: Environment[]) => void): { stop(): void } {
  let told = 0;
  const tick = () => {
    const text = readText(join(dir, 'progress.jsonl')) ?? '';
    const lines = text.split('\n').filter((l) => l.trim()).length;
    if (lines === told) return;
    told = lines;
    const all = parseProgress(text);
    if (all.length) on(all);
  };
  const timer = setInterval(tick, 200);
  return {
    stop() {
      clearInterval(timer);
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

/** Each attempt's scrubber once its payload was read: the attempts a command shows are few at a time. */
const scrubbers = new LRUCache<string, Scrubber>({ max: 64 });

/** The secrets an attempt's log could show: the runner's secret-named variables and what its payload passes by name. */
function scrubberOf(dir: string): Scrubber {
  const known = scrubbers.get(dir);
  if (known) return known;
  const scrubber = Scrubber.fromEnvironment(process.env, undefined);
  try {
    const payload = JSON.parse(readFileSync(join(dir, 'payload.json'), 'utf8')) as StepPayload;
    for (const name of byNameOf(payload)) scrubber.add(process.env[name]);
  } catch {
    // No payload yet (the attempt is told before it is dispatched): the secret-named variables
    // alone, and not kept, so that the next look, once the payload is there, masks what it names.
    return scrubber;
  }
  scrubbers.set(dir, scrubber);
  return scrubber;
}

/** How much of the end of a log is read for its last line. */
const TAIL_BYTES = 8192;

/** The last non-blank line of a file, without terminal control sequences; undefined when there is none. */
export function lastLine(path: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return undefined;
  }
  try {
    const size = fstatSync(fd).size;
    const length = Math.min(size, TAIL_BYTES);
    const buffer = Buffer.alloc(length);
    readSync(fd, buffer, 0, length, size - length);
    const lines = buffer
      .toString('utf8')
      // Colours, cursor moves and carriage-return redraws would rewrite the command line's own lines.
      // eslint-disable-next-line no-control-regex
      .replace(/\x1b\[[0-9;?]*[ -/]*[@-~]/g, '')
      .split(/\r?\n|\r/)
      // eslint-disable-next-line no-control-regex
      .map((l) => l.replace(/[\x00-\x08\x0b-\x1f\x7f]/g, '').trim())
      .filter((l) => l.trim() !== '');
    return lines.at(-1);
  } finally {
    closeSync(fd);
  }
}

const clipLine = (line: string, max = 200): string => (line.length > max ? `${line.slice(0, max - 1)}…` : line);

/** How long a leftover step process gets to stop its commands before it is killed. */
const STOP_GRACE_MS = 5000;

/** A file written whole or not at all: a full disk leaves no half of it for a later `conveyor` to read. */
function writeAtomically(path: string, text: string, mode?: number): void {
  try {
    writeFileSync(`${path}.tmp`, text, mode === undefined ? {} : { mode });
    renameSync(`${path}.tmp`, path);
  } catch (e) {
    rmSync(`${path}.tmp`, { force: true });
    throw e;
  }
}

/**
 * Runs a write of the attempt folder; a write the machine refused (a full disk, a read-only
 * folder, a file where the folder should be) becomes one line naming the folder and what to do,
 * which the attempt is lost with (and the run fails with, as it stops dispatching it).
 */
function writing<T>(dir: string, write: () => T): T {
  try {
    return write();
  } catch (e) {
    const said = describeWriteFailure(e, `the attempt folder ${dir}`, 'give `--state` a database in another folder');
    if (said) throw new ConveyorError('internal', said, { cause: e });
    throw e;
  }
}

/** The attempt's folder with its payload, and its log opened for the step process (its descriptor). */
function prepareFolder(dir: string, payload: StepPayload): number {
  return writing(dir, () => {
    mkdirSync(dir, { recursive: true });
    writeAtomically(join(dir, 'payload.json'), JSON.stringify(payload));
    return openSync(join(dir, 'output.log'), 'a');
  });
}
