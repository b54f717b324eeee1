// The workflow dispatcher: one step attempt is a check run `conveyor / <step>` (queued, its
// external id naming the attempt) on the primary PR's head, then a workflow_dispatch of the
// repository's conveyor.yml with the payload as one input. The result comes back later through
// the check run (check_run.completed), so `run` answers `dispatched`.
//
// Never twice for one attempt: a record is written before the check run is created (links.ts),
// and one left by an interrupted try makes the next try look on GitHub, for the check run and
// then for the workflow run, before it makes either. When the head is known as the transition
// that makes the attempt is committed, that record rides on the same commit (`prepare`); else the
// try writes it first. The record that the dispatch is done rides on the store's next write: a
// crash before it only makes the next try look.
import { DISPATCH_INPUTS_LIMIT, fitPayload } from '../../core/contract/payload-fit.ts';
import { externalIdOf, parseResultText, stepCheckName } from '../../core/github/check-run.ts';
import { payloadRepos } from '../../core/run/payload.ts';
import type { Run } from '../../core/run/types.ts';
import type { StepPayload } from '../../core/contract/wire.ts';
import { latestRun, type RunStore } from '../../engine/ports/store.ts';
import type { AttemptOutcome, Dispatcher } from '../../engine/ports/dispatcher.ts';
import type { GitHubForge } from '../forge/github.ts';
import type { Heads } from '../github/heads.ts';
import type { AttemptLink, LinkStore } from '../store/links.ts';

export const WORKFLOW_FILE = 'conveyor.yml';

/** Prepared records kept for their attempt's first try; far more than one commit makes. */
const PREPARED_KEPT = 1000;

/** A `creating-check` record queued by `prepare`; `durable` once its commit wrote it. */
interface Prepared {
  link: AttemptLink;
  durable: boolean;
}

export interface WorkflowDispatcherOptions {
  store: RunStore;
  links: LinkStore;
  heads: Heads;
  /** The GitHub adapter of the run's installation. */
  github(run: Run): Promise<GitHubForge>;
  workflow?: string;
  /** Characters all inputs may take together (GitHub: 65,535). */
  inputsLimit?: number;
  now?: () => string;
  log?: (line: string) => void;
}

/** How the workflow run's name marks the check run it works for (see workflows/conveyor.yml). */
export function workflowRunMarker(checkRunId: number): string {
  return `[check run ${checkRunId}]`;
}

export function parseWorkflowRunMarker(title: string | null | undefined): number | undefined {
  const m = /\[check run (\d+)\]/.exec(title ?? '');
  return m ? Number(m[1]) : undefined;
}

/**
 * What a completed check run says of its attempt: the result the action wrote into it, or why the
 * attempt is lost (it was completed by someone or something else before the action reported).
 */
export function completedOutcome(check: { conclusion?: string | null; output?: { text?: string | null; summary?: string | null } | null }): Extract<AttemptOutcome, { kind: 'result' | 'lost' }> {
  const parsed = parseResultText(check.output?.text, check.output?.summary);
  return parsed.ok ? { kind: 'result', result: parsed.result } : { kind: 'lost', reason: `its check run was completed (${check.conclusion ?? 'no conclusion'}) without a result: ${parsed.message}` };
}

export function createWorkflowDispatcher(options: WorkflowDispatcherOptions): Dispatcher {
  const now = options.now ?? (() => new Date().toISOString());
  const workflow = options.workflow ?? WORKFLOW_FILE;
  const limit = options.inputsLimit ?? DISPATCH_INPUTS_LIMIT;
  const { links } = options;

  /**
   * Attempts whose `creating-check` record was queued to ride on the commit that made them, by
   * external id; `durable` once that commit wrote it. Taken by the attempt's first try.
   */
  const prepared = new Map<string, Prepared>();

  const runOf = (payload: StepPayload): Run => {
    const run = latestRun(options.store, payload.runId);
    if (!run) throw new Error(`no run ${payload.runId} in the store`);
    return run;
  };

  return {
    prepare(run, effects) {
      const mine: Array<[string, Prepared]> = [];
      for (const effect of effects) {
        if (effect.type !== 'dispatch') continue;
        let known: { repo: string; head: string } | undefined;
        try {
          known = options.heads.known(run, payloadRepos(run));
        } catch {
          // Never a reason for the transition to fail: the dispatch finds out for itself.
        }
        if (!known) continue;
        const externalId = externalIdOf({ runId: run.id, step: effect.step, attempt: effect.attempt, epoch: effect.epoch, mode: effect.mode });
        const entry: Prepared = { link: { externalId, runId: run.id, repo: known.repo, state: 'creating-check', head: known.head, at: now() }, durable: false };
        links.saveAttempt(entry.link, null, { later: true, written: () => void (entry.durable = true) });
        prepared.set(externalId, entry);
        mine.push([externalId, entry]);
        // Entries never taken (their attempt became moot) go, the oldest first.
        if (prepared.size > PREPARED_KEPT) prepared.delete(prepared.keys().next().value!);
      }
      // A transition not committed (a conflict: another writer made or moved the run) made none of
      // these attempts here: a try of theirs must look on GitHub first, as after a crash.
      return (committed) => {
        if (committed) return;
        for (const [externalId, entry] of mine) if (prepared.get(externalId) === entry) prepared.delete(externalId);
      };
    },

    async run(payload) {
      const run = runOf(payload);
      const github = await options.github(run);
      const externalId = externalIdOf({ runId: payload.runId, step: payload.step.id, attempt: payload.attempt, epoch: payload.epoch, mode: payload.mode });
      // This attempt's record, written by the commit that made it: nothing of it can exist on GitHub yet.
      const ready = prepared.get(externalId);
      prepared.delete(externalId);
      const fresh = ready?.durable ? ready.link : undefined;
      const { repo, head } = fresh ? { repo: fresh.repo, head: fresh.head! } : await options.heads.of(run, payload.repos, github);
      // What an earlier try of this attempt recorded (read once: this try's own writes follow it).
      const stored = fresh ? undefined : links.attempt(externalId);
      let link: AttemptLink = fresh ?? stored ?? { externalId, runId: run.id, repo, state: 'creating-check', head, at: now() };
      // What the table holds for this attempt as far as this try knows (each save is one statement).
      let written: AttemptLink | null = fresh ?? stored ?? null;
      const save = (patch: Partial<AttemptLink>, how?: { later: boolean }) => {
        link = { ...link, ...patch, at: now() };
        links.saveAttempt(link, written, how);
        written = link;
      };

      let madeCheck = false;
      if (link.checkRunId === undefined) {
        const name = stepCheckName(payload.step.id);
        // A record without an id means an earlier try may have created it before it died.
        const earlier = stored ? await github.findCheckRun(repo, link.head ?? head, name, externalId) : undefined;
        if (!earlier && !fresh) save({ state: 'creating-check', head });
        const check =
          earlier ??
          (await github.createCheckRun(repo, {
            name,
            head_sha: head,
            external_id: externalId,
            status: 'queued',
            output: { title: `queued: attempt ${payload.attempt}`, summary: `Conveyor run \`${run.id}\`, step \`${payload.step.id}\` (${payload.step.kind}, ${payload.mode}), attempt ${payload.attempt}${payload.epoch > 0 ? `, dispatch ${payload.epoch + 1}` : ''}: waiting for its workflow run.` },
          }));
        // Recorded with the dispatch: the `creating-check` record makes a try after a crash look first.
        link = { ...link, checkRunId: check.id, checkRunUrl: check.url };
        madeCheck = earlier === undefined;
      }
      const checkRunId = link.checkRunId!;

      if (link.state !== 'dispatched') {
        const marker = workflowRunMarker(checkRunId);
        // A check run an earlier try made (recorded, or found on GitHub) may have its workflow run
        // already; one this try made cannot (and without a stored record, this try made it).
        const earlier = stored && !madeCheck ? await github.findWorkflowRun(repo, workflow, marker, stored.at) : undefined;
        if (earlier) {
          save({ state: 'dispatched', workflowRunId: earlier.id, workflowRunUrl: earlier.url });
        } else {
          const label = `${payload.step.id} · attempt ${payload.attempt}${payload.mode === 'run' ? '' : ` (${payload.mode})`}`;
          const fixed = { step: label, 'check-run': String(checkRunId) };
          const room = limit - JSON.stringify(fixed).length - 32;
          const fitted = fitPayload(payload, room);
          if (fitted.cuts.length > 0) options.log?.(`conveyor: run ${run.id} step ${payload.step.id}: cut ${fitted.cuts.join(', ')} to fit the workflow inputs`);
          const ref = typeof run.options.defaultBranch === 'string' ? run.options.defaultBranch : (payload.repos.find((r) => r.role === 'primary')?.base ?? 'main');
          const started = await github.dispatchWorkflow(repo, workflow, ref, { payload: fitted.text, ...fixed });
          save({ state: 'dispatched', ...(started.runId ? { workflowRunId: started.runId } : {}), ...(started.url ? { workflowRunUrl: started.url } : {}) }, { later: true });
        }
      }
      return { kind: 'dispatched' };
    },

    /** A late result is kept; an attempt still queued or running is left to the sweeper's clock. */
    async recover(payload): Promise<AttemptOutcome | undefined> {
      const link = links.attempt(externalIdOf({ runId: payload.runId, step: payload.step.id, attempt: payload.attempt, epoch: payload.epoch, mode: payload.mode }));
      if (link?.checkRunId === undefined) return undefined;
      const github = await options.github(runOf(payload));
      const check = await github.getCheckRun(link.repo, link.checkRunId);
      return check.status === 'completed' ? completedOutcome(check) : undefined;
    },
  };
}
