// What the real-CLI tests share: the run's status as `conveyor status --json` prints it, a passing
// review verdict in the schema a schema-enforcing CLI is given, and the shell command an agent is
// scripted to run to record what it holds (every environment of its sandbox's processes, and
// every file of its HOME), into a file that lands on the PR's branch for the test to read.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { expect } from 'vitest';
import type { Usage } from '../../../core/contract/usage.ts';
import { cli } from '../../helpers/cli.ts';
import type { Fleet } from '../../helpers/fleet.ts';

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
