// The status section of a run's PR bodies on GitHub (core/github/pr-status.ts renders it), kept
// current as the run moves, as the embedded mode does (cli/pr-status.ts): only the text between the
// status markers is replaced, so what the action wrote (what changed, the links, the protected
// paths) and what people wrote stays.
//
// Each PR costs a write only when its section's text changed, and a read only when this process
// does not know the body as GitHub has it. It knows it after its own write, until one of:
// - a code attempt (the code step's or a repair's) finished: the action rewrites the bodies then
//   (action/src/publish.ts: what changed, the links), so the body is read again (the run's count of
//   finished code attempts, and the PR's head, say so).
// - someone edited the PR (the `pull_request.edited` webhook: forget()).
// While a code attempt is under way, nothing is written: the action reads a body and writes it back
// with its change, and a status written in between would be lost, or would undo its change (the
// tracking comment shows the attempt meanwhile). It is written once the attempt has finished.
import { LRUCache } from 'lru-cache';
import { GITHUB_COMMANDS, renderPrStatus } from '../core/github/pr-status.ts';
import { statusOf, withStatus } from '../core/github/pr-body.ts';
import type { PullRequestRef } from '../core/contract/wire.ts';
import type { Run } from '../core/run/types.ts';
import type { Pulls } from '../adapters/github/forge/pulls.ts';

/** A body as this process last wrote (or read) it, with what could have changed it since. */
interface KnownBody {
  body: string;
  /** The status section in it. */
  status: string;
  /** The run's code attempts and the PR's head when it was known (see basisOf). */
  basis: string;
}

/** PRs whose bodies are remembered; an older one is read again before its next write. */
const REMEMBERED_PRS = 4096;

const keyOf = (repo: string, number: number) => `${repo}#${number}`;

/** Code attempts of the run, finished and under way: the action rewrites PR bodies in those. */
function codeAttempts(run: Run): { finished: number; underWay: boolean } {
  let finished = 0;
  let underWay = false;
  for (const p of run.plan.steps) {
    const s = run.steps[p.id];
    if (!s) continue;
    for (const a of s.attempts) if ((p.kind === 'code' || a.mode === 'repair') && a.finishedAt) finished++;
    if (s.status === 'queued' && (p.kind === 'code' || s.mode === 'repair')) underWay = true;
  }
  return { finished, underWay };
}

function basisOf(run: Run, pr: PullRequestRef): string {
  return `${codeAttempts(run).finished}:${pr.head ?? ''}`;
}

export class PrStatusBodies {
  private readonly known = new LRUCache<string, KnownBody>({ max: REMEMBERED_PRS });

  /** A body this process wrote itself before the run had any code attempt (its draft PR, as it opened it). */
  learn(pr: PullRequestRef, body: string): void {
    this.known.set(keyOf(pr.repo, pr.number), { body, status: statusOf(body) ?? '', basis: `0:${pr.head ?? ''}` });
  }

  /** Someone else edited the PR: its body is read before the next write. */
  forget(repo: string, number: number): void {
    this.known.delete(keyOf(repo, number));
  }

  /** Writes the run's status section into each of its PRs whose section says something else. */
  async write(run: Run, pulls: Pick<Pulls, 'body' | 'update'>): Promise<void> {
    if (run.prs.length === 0) return;
    if (codeAttempts(run).underWay) return;
    const status = renderPrStatus(run, GITHUB_COMMANDS);
    for (const pr of run.prs) {
      const key = keyOf(pr.repo, pr.number);
      const basis = basisOf(run, pr);
      const remembered = this.known.get(key);
      const current = remembered?.basis === basis ? remembered : undefined;
      if (current?.status === status) continue;
      const body = current?.body ?? (await pulls.body(pr.repo, pr.number));
      if (statusOf(body) === status) {
        this.known.set(key, { body, status, basis });
        continue;
      }
      const next = withStatus(body, status);
      await pulls.update(pr.repo, pr.number, { body: next });
      this.known.set(key, { body: next, status, basis });
    }
  }
}
