// The token broker's view of the app's state (token-broker.ts, AttemptAuthority), over the run
// store and the link tables: the run says whether the attempt is current, what its change set and
// step are and which installation it belongs to; the attempt's link says where it was dispatched,
// how far the dispatch got and, once known, its workflow run. An attempt the app has no link for
// was never dispatched.
//
// Where the dispatch did not say which workflow run it started (GitHub Enterprise Server), the run
// is looked for as the sweeper looks for it, by the marker `[check run N]` in its name, but only
// among the runs the app's own bot started: anyone who may dispatch the workflow can name their
// run the same. The run found is recorded in the link, as the dispatch would have.
import { attemptKey, isCurrent } from '../core/contract/attempt-ref.ts';
import { githubOriginOf } from '../core/run/origin.ts';
import type { RunStore } from '../engine/ports/store.ts';
import type { LinkStore } from '../adapters/github/links.ts';
import { findAttemptRun, WORKFLOW_FILE } from '../adapters/dispatch/workflow/dispatcher.ts';
import type { GitHub } from '../adapters/github/forge/github.ts';
import type { AttemptAuthority, AttemptFacts } from './token-broker.ts';

export interface AttemptAuthorityDeps {
  store: RunStore;
  links: LinkStore;
  /** GitHub as an installation sees it: without it, an attempt without a recorded run gets no token. */
  github?: (installationId: number) => Promise<GitHub>;
  /** The app's bot login (`<slug>[bot]`), the only starter of a run that counts. */
  botLogin?: () => Promise<string>;
  workflow?: string;
}

export function storeAttemptAuthority(deps: AttemptAuthorityDeps): AttemptAuthority {
  const workflow = deps.workflow ?? WORKFLOW_FILE;
  const authority: AttemptAuthority = {
    async lookup(ref) {
      const [run, link] = await Promise.all([deps.store.get(ref.runId), deps.links.attempt(attemptKey(ref))]);
      if (!run || !link || link.runId !== run.id) return undefined;
      const step = run.plan.steps.find((s) => s.id === ref.step);
      const origin = githubOriginOf(run);
      if (!step || !origin) return undefined;
      const facts: AttemptFacts = {
        // The same judgement as for its results and losses.
        current: isCurrent(run, ref),
        repo: link.repo,
        // The ref the workflow dispatcher dispatches on (adapters/dispatch/workflow/dispatch.ts).
        defaultBranch: origin.defaultBranch,
        dispatch: link.state,
        ...(link.workflowRunId !== undefined ? { workflowRunId: link.workflowRunId } : {}),
        installationId: origin.installationId,
        repositories: run.plan.changeSet.map((r) => r.repo),
        stepKind: step.kind,
      };
      return facts;
    },
  };
  const { github, botLogin } = deps;
  if (github && botLogin) {
    authority.findWorkflowRun = async (ref, facts) => {
      const link = await deps.links.attempt(attemptKey(ref));
      if (!link || link.checkRunId === undefined) return undefined;
      if (link.workflowRunId !== undefined) return link.workflowRunId;
      // The link last changed when the dispatch was recorded (findAttemptRun allows for clocks apart).
      const { workflows } = await github(facts.installationId);
      const found = await findAttemptRun(workflows, { repo: link.repo, checkRunId: link.checkRunId, dispatchedAt: link.at }, await botLogin(), workflow);
      if (!found) return undefined;
      // Read again: a webhook may have recorded the run meanwhile (then that record stands).
      const latest = (await deps.links.attempt(link.externalId)) ?? link;
      if (latest.workflowRunId !== undefined) return latest.workflowRunId;
      await deps.links.saveAttempt({ ...latest, workflowRunId: found.id, workflowRunUrl: found.url });
      return found.id;
    };
  }
  return authority;
}
