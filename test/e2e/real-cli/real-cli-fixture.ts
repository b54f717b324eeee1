// What the real-CLI tests share: the run's status as `conveyor status --json` prints it, a passing
// review verdict in the schema a schema-enforcing CLI is given, and the shell command an agent is
// scripted to run to record what it holds (every environment of its sandbox's processes, and
// every file of its HOME), into a file that lands on the PR's branch for the test to read; and a
// run of a CLI into a stream that stalls.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { expect } from 'vitest';
import type { Usage } from '../../../core/contract/usage.ts';
import { createBench } from '../../action/preset-fixture.ts';
import { cli } from '../../helpers/cli.ts';
import type { Fleet } from '../../helpers/fleet.ts';
import { processesWith } from '../../helpers/processes.ts';
import { restoreCli, type InstalledCli } from '../../helpers/real-clis.ts';
import { startVendorApi, type Answer } from '../../helpers/vendor-api.ts';
import { script, type Script } from '../../helpers/vendor-turns.ts';

export interface StatusJson {
  status: string;
  steps: Record<
    string,
    {
      status: string;
      reason?: string;
      repairs: number;
      result?: {
        usage?: Usage;
        summary: string;
        conclusion?: string;
        error?: { code: string; message: string };
        sandbox?: { mode: string; blocked: Array<{ host: string; port: number; count: number }> };
      };
      attempts: Array<{ mode: string; usage?: Usage; conclusion?: string; startedAt: string; finishedAt?: string }>;
    }
  >;
  prs: Array<{ repo: string; number: number; branch: string }>;
}

export async function status(fleet: Fleet, id: string): Promise<StatusJson> {
  const r = await cli(['status', id, '--json', '--state', fleet.state]);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as StatusJson;
}

export const reviewTurn = {
  verdict: 'pass',
  findings: [],
  scores: { complexity: 0.1, risk: 0.1, impact: 0.2 },
};

/**
 * The agent's view: each process's environment in its sandbox (its CLI's own among them) and its
 * HOME's files; `unpacked` names a folder of HOME holding only what the CLI unpacked of its own
 * package (Copilot CLI's, 235 MB), left out.
 */
// No braces or quotes: Claude Code's Bash tool refuses those together as "expansion obfuscation".
export const SEE_WHAT_THE_AGENT_HOLDS = (file: string, unpacked?: string) =>
  `cat /proc/[0-9]*/environ 2>/dev/null | tr \\\\000 \\\\n > ${file}; echo HOME=$HOME >> ${file}; find $HOME ${unpacked ? `-path $HOME/${unpacked} -prune -o ` : ''}-type f -size -100k -exec cat {} + >> ${file} 2>/dev/null; echo recorded`;

/** A one-step pipeline (implement, on acme/web) whose coder is `agent`, a YAML flow mapping. */
export function coderOnly(agent: string): string {
  return `version: 1
agents:
  coder: ${agent}
services:
  web: { repo: acme/web }
pipelines:
  default:
    service: web
    steps:
      - { id: implement, kind: code, agent: coder }
`;
}

/** The step process's log of attempt 1 of `implement` in run `id` (the file `conveyor run` names). */
export function stepLog(fleet: Fleet, id: string): string {
  return readFileSync(join(dirname(fleet.state), 'attempts', id, 'implement.run.1.0', 'output.log'), 'utf8');
}

export interface StalledRun {
  /** The step's result and the step process's log. */
  result: Awaited<ReturnType<ReturnType<typeof createBench>['run']>>['result'];
  log: string;
  /** How many requests of the main conversation reached the API. */
  seen: number;
  /** Processes still carrying the agent's STALL_MARK after the step ended. */
  left: unknown[];
  /** The branches of acme/web after it: nothing was pushed. */
  branches: string[];
}

/**
 * Runs `cli` as the one-step pipeline's coder (`agent(url)`, a YAML flow mapping naming the API's
 * `url` as its endpoint and `STALL_MARK: mark` in its env) against an API (`wire`) that starts its
 * first answer and never finishes it: through the action's entry, where a minute can be shrunk to
 * `minuteMs` (`conveyor run`'s is a real one), its CLI restored as GitHub's cache would.
 */
export async function runIntoAStall(o: {
  cli: InstalledCli;
  wire: (s: Script) => Answer;
  agent: (url: string) => string;
  mark: string;
  env: Record<string, string>;
  minuteMs: number;
}): Promise<StalledRun> {
  const bench = createBench();
  const stalled = script([{ stall: true }]);
  const api = await startVendorApi({ answer: o.wire(stalled) });
  try {
    const payload = bench.payloadFrom(coderOnly(o.agent(api.url)), 'implement');
    restoreCli(o.cli, bench.cache);
    const { result, log } = await bench.run(payload, join(bench.scratch, 'ws'), { env: o.env, path: `${o.cli.bin}:${process.env.PATH}`, minuteMs: o.minuteMs });
    return { result, log, seen: stalled.seen.length, left: processesWith('STALL_MARK', o.mark), branches: bench.remotes.branches('acme/web') };
  } finally {
    await api.close();
    bench.cleanup();
  }
}
