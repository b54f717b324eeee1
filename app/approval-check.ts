// The check run of an approval step, `conveyor / <step>`, on the primary PR's head: in progress
// with the buttons Approve and Reject while the step waits, completed once it is decided. A push
// moves it: the check on the old head is closed as superseded, a new one is made on the new head.
import { stepCheckName } from '../core/github/check-run.ts';
import { attemptKey } from '../core/contract/attempt-ref.ts';
import { payloadRepos } from '../core/run/payload.ts';
import { validApprovals } from '../core/run/reducer.ts';
import type { Run } from '../core/run/types.ts';
import type { CheckRuns, CheckRunWrite } from '../adapters/github/forge/checks.ts';
import type { GitHub } from '../adapters/github/forge/github.ts';
import type { Heads } from '../adapters/github/heads.ts';
import type { AttemptLink, LinkStore } from '../adapters/github/links.ts';

/** GitHub's limits: label 20, description 40, identifier 20 characters. */
export const APPROVAL_ACTIONS = [
  { label: 'Approve', description: 'Approve the current heads of the PRs', identifier: 'approve' },
  { label: 'Reject', description: 'Reject: the run waits for a person', identifier: 'reject' },
] as const;

/** Check runs whose last write is remembered (a forgotten one costs one more update, no harm). */
const REMEMBERED_CHECKS = 4096;

export class ApprovalChecks {
  /** What was last written per check run, so an unchanged state costs no call. */
  private readonly written = new Map<number, string>();

  constructor(
    private readonly links: LinkStore,
    private readonly heads: Heads,
    private readonly now: () => string,
  ) {}

  /** `attempts`: the run's attempt links when the caller has read them already. */
  async publish(run: Run, github: Pick<GitHub, 'checks' | 'repos'>, attempts?: readonly AttemptLink[]): Promise<void> {
    const steps = run.plan.steps.filter((p) => p.kind === 'approval');
    if (steps.length === 0) return;
    const { repo, head } = await this.heads.of(run, payloadRepos(run), github.repos);
    for (const p of steps) {
      const s = run.steps[p.id];
      if (!s || p.kind !== 'approval') continue;
      const externalId = attemptKey({ runId: run.id, step: p.id, attempt: 0, epoch: 0, mode: 'run' });
      const link = attempts ? attempts.find((l) => l.externalId === externalId) : await this.links.attempt(externalId);
      const want = this.state(run, p.id, p.minApprovals, s.status, s.reason);
      if (link?.checkRunId !== undefined && link.head !== head) {
        // The old head's check: no longer the one that decides.
        await this.write(github.checks, link.repo, link.checkRunId, {
          status: 'completed',
          conclusion: 'neutral',
          completed_at: this.now(),
          actions: [],
          output: {
            title: 'superseded by a new head',
            summary: `The PR's head moved to ${head.slice(0, 7)}; the decision is taken on the check run of the new head.`,
          },
        });
      }
      if (link?.checkRunId !== undefined && link.head === head) {
        await this.write(github.checks, repo, link.checkRunId, want);
        continue;
      }
      // Nothing to show before the step first waits on this head.
      if (s.status === 'pending') continue;
      const created = await github.checks.create(repo, { name: stepCheckName(p.id), head_sha: head, external_id: externalId, ...want });
      this.remember(created.id, want);
      await this.links.saveAttempt({
        externalId,
        runId: run.id,
        repo,
        state: 'dispatched',
        head,
        checkRunId: created.id,
        checkRunUrl: created.url,
        at: this.now(),
      });
    }
  }

  private async write(checks: CheckRuns, repo: string, id: number, patch: CheckRunWrite): Promise<void> {
    if (this.written.get(id) === writtenText(patch)) return;
    await checks.update(repo, id, patch);
    this.remember(id, patch);
  }

  private remember(id: number, patch: CheckRunWrite): void {
    this.written.delete(id);
    this.written.set(id, writtenText(patch));
    if (this.written.size > REMEMBERED_CHECKS) this.written.delete(this.written.keys().next().value!);
  }

  private state(run: Run, step: string, need: number, status: string, reason: string | undefined): CheckRunWrite {
    const by = validApprovals(run, step).map((a) => `@${a.by}`);
    const approvals = `Approvals: ${by.length} of ${need}${by.length ? ` (${by.join(', ')})` : ''}.`;
    const how =
      "Approve or Reject with the buttons above, or comment `/conveyor approve` or `/conveyor reject [reason]` on the issue or a PR of the run (write permission needed; only the step's approvers count).";
    switch (status) {
      case 'waiting':
        return {
          status: 'in_progress',
          actions: [...APPROVAL_ACTIONS],
          output: { title: reason ?? 'waiting for approval', summary: `${approvals}\n\n${how}` },
        };
      case 'succeeded':
        return {
          status: 'completed',
          conclusion: 'success',
          completed_at: this.now(),
          actions: [],
          output: { title: `approved by ${by.join(', ') || 'enough people'}`, summary: approvals },
        };
      case 'failed':
        return {
          status: 'completed',
          conclusion: 'failure',
          completed_at: this.now(),
          actions: [],
          output: { title: (reason ?? 'rejected').slice(0, 200), summary: `${reason ?? 'rejected'}. \`/conveyor retry\` asks again.` },
        };
      case 'cancelled':
        return {
          status: 'completed',
          conclusion: 'cancelled',
          completed_at: this.now(),
          actions: [],
          output: { title: 'cancelled', summary: reason ?? 'The run was cancelled.' },
        };
      default:
        return {
          status: 'queued',
          actions: [],
          output: {
            title: reason ?? 'waiting for the steps before it',
            summary: `The steps before this approval run first${reason ? ` (${reason})` : ''}. ${approvals}`,
          },
        };
    }
  }
}

/** A write as compared with the last one: its completion time changes on every render. */
function writtenText(patch: CheckRunWrite): string {
  return JSON.stringify({ ...patch, completed_at: undefined });
}
