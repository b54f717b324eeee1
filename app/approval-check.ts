// The check run of an approval step, `conveyor / <step>`, on the primary PR's head. While the step
// waits it is completed as `action_required` with the buttons Approve and Reject (the pull request
// shows that someone must act, and no check run of a waiting run is left in progress); once decided
// it says how. GitHub never changes a completed check run's conclusion, so each new state after a
// completed one is a new check run of the same name on the head (check-writes.ts), and the step's
// record points at it (the buttons of the old one count no more). A push moves it: the check on the
// old head is closed as superseded, a new one is made on the new head.
import { LRUCache } from 'lru-cache';
import { stepCheckName, type CheckState } from '../core/github/check-run.ts';
import { attemptKey } from '../core/contract/attempt-ref.ts';
import { payloadRepos } from '../core/run/payload.ts';
import { validApprovals } from '../core/run/reducer.ts';
import { describeProtected, protectedPrs } from '../core/run/protect.ts';
import type { Run } from '../core/run/types.ts';
import type { GitHub } from '../adapters/github/forge/github.ts';
import { checkRunsHead } from '../adapters/github/heads.ts';
import type { AttemptLink, LinkStore } from '../adapters/github/links.ts';
import { writeCheck, type CheckWrite } from './check-writes.ts';

/** GitHub's limits: label 20, description 40, identifier 20 characters. */
export const APPROVAL_ACTIONS = [
  { label: 'Approve', description: 'Approve the current heads of the PRs', identifier: 'approve' },
  { label: 'Reject', description: 'Reject: the run waits for a person', identifier: 'reject' },
] as const;

/** Check runs whose last write is remembered (a forgotten one costs one more update, no harm). */
const REMEMBERED_CHECKS = 4096;

export class ApprovalChecks {
  /** What was last written per check run (its text, and its state), so an unchanged state costs no call. */
  private readonly written = new LRUCache<number, { text: string; state: CheckState }>({ max: REMEMBERED_CHECKS });

  constructor(
    private readonly links: LinkStore,
    private readonly now: () => string,
  ) {}

  /**
   * `attempts`: the run's attempt links when the caller has read them already; `detailsUrl`: where
   * the check run's details link goes (the tracking comment). Says whether it made the check run
   * of an approval that waits (whose buttons the comment links).
   */
  async publish(run: Run, github: Pick<GitHub, 'checks' | 'repos'>, attempts?: readonly AttemptLink[], detailsUrl?: string): Promise<boolean> {
    const steps = run.plan.steps.filter((p) => p.kind === 'approval');
    if (steps.length === 0) return false;
    const { repo, head } = checkRunsHead(run, payloadRepos(run));
    let made = false;
    for (const p of steps) {
      const s = run.steps[p.id];
      if (!s || p.kind !== 'approval') continue;
      const externalId = attemptKey({ runId: run.id, step: p.id, attempt: 0, epoch: 0, mode: 'run' });
      const link = attempts ? attempts.find((l) => l.externalId === externalId) : await this.links.attempt(externalId);
      const want = { ...this.state(run, p.id, p.minApprovals, s.status, s.reason), ...(detailsUrl ? { details_url: detailsUrl } : {}) };
      if (link?.checkRunId !== undefined && link.head !== head) {
        // The old head's check: no longer the one that decides (a completed one keeps its conclusion; its buttons go).
        const old = this.written.get(link.checkRunId)?.state;
        const superseded = {
          actions: [],
          output: {
            title: 'superseded by a new head',
            summary: `The PR's head moved to ${head.slice(0, 7)}; the decision is taken on the check run of the new head.`,
          },
        };
        await this.update(
          github,
          link.repo,
          link.checkRunId,
          old?.status === 'completed'
            ? { ...superseded, status: 'completed', conclusion: old.conclusion as CheckWrite['conclusion'] }
            : { ...superseded, status: 'completed', conclusion: 'neutral', completed_at: this.now() },
        );
      }
      const onHead = link?.checkRunId !== undefined && link.head === head ? link.checkRunId : undefined;
      // Nothing to show before the step first waits on this head.
      if (onHead === undefined && s.status === 'pending') continue;
      const remembered = onHead !== undefined ? this.written.get(onHead) : undefined;
      if (remembered && remembered.text === writtenText(want)) continue;
      const out = await writeCheck(
        github.checks,
        repo,
        onHead !== undefined ? { id: onHead, ...(remembered ? { state: remembered.state } : {}) } : undefined,
        want,
        {
          name: stepCheckName(p.id),
          head_sha: head,
          external_id: externalId,
        },
      );
      this.remember(out.id, want);
      if (!out.created) continue;
      // The tracking comment links the buttons of the approval that waits.
      if (s.status === 'waiting') made = true;
      await this.links.saveAttempt({
        externalId,
        runId: run.id,
        repo,
        state: 'dispatched',
        head,
        checkRunId: out.id,
        ...(out.url ? { checkRunUrl: out.url } : {}),
        at: this.now(),
      });
    }
    return made;
  }

  private async update(github: Pick<GitHub, 'checks'>, repo: string, id: number, patch: CheckWrite): Promise<void> {
    if (this.written.get(id)?.text === writtenText(patch)) return;
    await github.checks.update(repo, id, patch);
    this.remember(id, patch);
  }

  private remember(id: number, patch: CheckWrite): void {
    this.written.set(id, { text: writtenText(patch), state: { status: patch.status, conclusion: patch.conclusion ?? null } });
  }

  private state(run: Run, step: string, need: number, status: string, reason: string | undefined): CheckWrite {
    const by = validApprovals(run, step).map((a) => `@${a.by}`);
    const guarded = protectedPrs(run);
    // What approving covers: a change to a protected path merges only with an approval of its head.
    const covers = guarded.length
      ? `\n\nThis approval covers the protected paths (\`protect\`) the change holds at these heads: ${describeProtected(guarded)}.`
      : '';
    const approvals = `Approvals: ${by.length} of ${need}${by.length ? ` (${by.join(', ')})` : ''}.${covers}`;
    const how =
      "Approve or Reject with the buttons above, or comment `/conveyor approve` or `/conveyor reject [reason]` on the issue or a PR of the run (write permission needed; only the step's approvers count).";
    const completed = { status: 'completed' as const, completed_at: this.now() };
    switch (status) {
      case 'waiting':
        return {
          ...completed,
          conclusion: 'action_required',
          actions: [...APPROVAL_ACTIONS],
          output: { title: reason ?? 'waiting for approval', summary: `${approvals}\n\n${how}` },
        };
      case 'succeeded':
        return { ...completed, conclusion: 'success', actions: [], output: { title: `approved by ${by.join(', ') || 'enough people'}`, summary: approvals } };
      case 'failed':
        return {
          ...completed,
          conclusion: 'failure',
          actions: [],
          output: { title: (reason ?? 'rejected').slice(0, 200), summary: `${reason ?? 'rejected'}. \`/conveyor retry\` asks again.` },
        };
      case 'cancelled':
        return { ...completed, conclusion: 'cancelled', actions: [], output: { title: 'cancelled', summary: reason ?? 'The run was cancelled.' } };
      default:
        // Not reached yet. Queued while the run works toward it; completed once the run waits or
        // ended without reaching it, so nothing of a run that waits is left queued.
        if (run.status === 'running') {
          return {
            status: 'queued',
            actions: [],
            output: {
              title: reason ?? 'waiting for the steps before it',
              summary: `The steps before this approval run first${reason ? ` (${reason})` : ''}. ${approvals}`,
            },
          };
        }
        return {
          ...completed,
          conclusion: run.status === 'cancelled' ? 'cancelled' : 'skipped',
          actions: [],
          output: {
            title: run.status === 'waiting' ? 'not reached: the run waits for a person' : `not reached: the run is ${run.status}`,
            summary: `The steps before this approval did not all succeed${run.waitingFor ? ` (${run.waitingFor})` : ''}. ${approvals}`,
          },
        };
    }
  }
}

/** A write as compared with the last one: its completion time changes on every render. */
function writtenText(patch: CheckWrite): string {
  return JSON.stringify({ ...patch, completed_at: undefined });
}
