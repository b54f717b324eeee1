// What the presets' tests share: two local repositories (acme/web, acme/api), a bin folder for the
// stand-ins of the CLIs (test/fixtures/agents/stand-in.mjs), and each preset CLI's stand-in in its
// install folder as GitHub's cache restores it, a payload compiled from a configuration as
// buildPayload would carry it, and one step run through the action's entry.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import { runEntry } from '../../action/src/entry.ts';
import { installDir } from '../../action/src/sandbox.ts';
import { PRESETS, type PresetName } from '../../core/config/presets.ts';
import { readPayload } from '../../action/src/payload.ts';
import { configSchema } from '../../core/config/schema.ts';
import { compilePlan } from '../../core/plan/compile.ts';
import type { StepPayload } from '../../core/contract/wire.ts';
import { makePayload } from '../helpers/payload.ts';
import { createRemotes, removeDir, tempDir, type Remotes } from '../helpers/repos.ts';

export const STAND_IN = resolve(import.meta.dirname, '../fixtures/agents/stand-in.mjs');

/** The bench's cache folder (CONVEYOR_CACHE_DIR): its tools folder and caches. */
const cacheOf = (scratch: string) => join(scratch, 'cache');

/** What a stand-in recorded of how it was called (and, asked to, of its HOME and its call to its model's API). */
export interface StandInRecord {
  argv: string[];
  stdin: string;
  env: Record<string, string>;
  cwd: string;
  /** What its $CONVEYOR_PROMPT_FILE held. */
  prompt?: string;
  /** Every file of its HOME (path relative to HOME → text), and HOME's mode, with STAND_IN_API. */
  home?: Record<string, string>;
  homeMode?: string;
  /** Its request to its model's API, as its CLI makes it, with STAND_IN_API. */
  api?: { url: string; status: number; body: string; error?: string };
  /** With STAND_IN_UNPACK: whether it found itself unpacked in its HOME already, or had to unpack. */
  unpacked?: 'found' | 'made';
}

export interface Bench {
  remotes: Remotes;
  scratch: string;
  bin: string;
  /** Its cache folder (CONVEYOR_CACHE_DIR): the tools folder and the caches. */
  cache: string;
  /**
   * Puts the stand-in on the bench's PATH under `name`, and, for a preset's CLI, into that preset's
   * install folder at its pinned version too, as GitHub's cache of it restores it (its preset's setup
   * looks there, never on PATH, and installs nothing).
   */
  standIn(name: string): void;
  /** The install folder of `preset` at `version` (default its pinned one) in the bench's cache folder. */
  installFolder(preset: PresetName, version?: string): string;
  /** The payload of `step` in the pipeline `default` of `yaml`, as buildPayload carries it. */
  payloadFrom(yaml: string, step: string): StepPayload;
  /** Runs one step through the action's entry in workspace `ws`, with the runner's variables `env`. */
  run(payload: StepPayload, ws: string, options: RunOptions): ReturnType<typeof runStep>;
  /** What the stand-in `cli` recorded in `dir`: the workspace for an agent, its install folder for a setup (which sees no workspace). */
  recordOf(dir: string, cli: string): StandInRecord;
  cleanup(): void;
}

export interface RunOptions {
  env: Record<string, string>;
  path?: string;
  /** Milliseconds per configured minute (the refusal window, timeouts). */
  minuteMs?: number;
  /** How backoffs are waited out (tests record them and do not wait). */
  sleep?: (ms: number) => Promise<void>;
}

async function runStep(bench: { remotes: Remotes; scratch: string; bin: string }, payload: StepPayload, ws: string, options: RunOptions) {
  const payloadPath = join(bench.scratch, `payload-${payload.step.id}.json`);
  writeFileSync(payloadPath, JSON.stringify(payload));
  const lines: string[] = [];
  const result = await runEntry({
    env: {
      PATH: options.path ?? `${bench.bin}:${process.env.PATH}`,
      HOME: process.env.HOME,
      GITHUB_SERVER_URL: bench.remotes.url,
      CONVEYOR_PAYLOAD_PATH: payloadPath,
      CONVEYOR_WORKSPACE_ROOT: ws,
      // Its own tools folder: a CLI an earlier test installed there is not on this one's PATH.
      CONVEYOR_CACHE_DIR: cacheOf(bench.scratch),
      ...options.env,
    },
    payload: await readPayload({ env: { CONVEYOR_PAYLOAD_PATH: payloadPath }, getInput: () => '' }),
    setSecret: () => undefined,
    log: (l) => lines.push(l),
    ...(options.minuteMs !== undefined ? { minuteMs: options.minuteMs, killGraceMs: 300 } : {}),
    ...(options.sleep ? { sleep: options.sleep } : {}),
  });
  return { result, log: lines.join('\n') };
}

export function createBench(): Bench {
  const remotes = createRemotes();
  const scratch = tempDir('conveyor-presets-');
  const bin = join(scratch, 'bin');
  mkdirSync(bin);
  remotes.create('acme/web', { 'README.md': 'web\n' });
  remotes.create('acme/api', { 'README.md': 'api\n' });
  const bench = { remotes, scratch, bin };
  const installFolder = (preset: PresetName, version = PRESETS[preset].version) =>
    installDir({ CONVEYOR_CACHE_DIR: cacheOf(scratch) }, { repos: [] }, { name: preset, preset, version });
  return {
    ...bench,
    cache: cacheOf(scratch),
    installFolder,
    standIn(name) {
      writeFileSync(join(bin, name), readFileSync(STAND_IN), { mode: 0o755 });
      const preset = Object.values(PRESETS).find((p) => p.cli === name);
      if (!preset) return;
      const folder = join(installFolder(preset.name), 'bin');
      mkdirSync(folder, { recursive: true });
      writeFileSync(join(folder, name), readFileSync(STAND_IN), { mode: 0o755 });
    },
    payloadFrom(yaml, step) {
      const plan = compilePlan(configSchema.parse(parse(yaml)), 'default');
      const planStep = plan.steps.find((s) => s.id === step)!;
      const base = makePayload({
        repos: [
          { repo: 'acme/web', services: ['web'] },
          { repo: 'acme/api', services: ['api'] },
        ],
      });
      // As buildPayload carries them: the step's agents, every service, and every name passed by name.
      const names = new Set(['agent' in planStep ? planStep.agent : undefined, 'repair' in planStep ? planStep.repair?.agent : undefined]);
      const code = plan.steps.find((s) => s.kind === 'code');
      return {
        ...base,
        ...(code?.kind === 'code' ? { coder: { agent: code.agent, model: plan.agents[code.agent]?.model } } : {}),
        step: planStep,
        agents: Object.fromEntries(Object.entries(plan.agents).filter(([n]) => names.has(n))),
        services: plan.services,
        byName: [...new Set([...Object.values(plan.agents), ...Object.values(plan.services)].flatMap((a) => a.secrets ?? []))].sort(),
      };
    },
    run: (payload, ws, options) => runStep(bench, payload, ws, options),
    recordOf: (dir, cli) => JSON.parse(readFileSync(join(dir, `stand-in-${cli}.json`), 'utf8')) as StandInRecord,
    cleanup() {
      remotes.cleanup();
      removeDir(scratch);
    },
  };
}
