// The token broker's view of the app's state (token-broker.ts, AttemptAuthority), over the run
// store and the link tables: the run says whether the attempt is current, what its change set and
// step are and which installation it belongs to; the attempt's link says where it was dispatched
// and, once known, its workflow run. An attempt the app has no link for was never dispatched.
import { externalIdOf, parseExternalId } from '../core/github/check-run.ts';
import type { RunStore } from '../engine/ports/store.ts';
import type { LinkStore } from '../engine/ports/links.ts';
import { currentAttempt } from './checks.ts';
import type { AttemptAuthority, AttemptFacts } from './token-broker.ts';

export function storeAttemptAuthority(deps: { store: RunStore; links: LinkStore }): AttemptAuthority {
  return {
    async lookup(id) {
      const externalId = externalIdOf(id);
      const attemptId = parseExternalId(externalId);
      const [run, link] = await Promise.all([deps.store.get(id.runId), deps.links.attempt(externalId)]);
      if (!attemptId || !run || !link || link.runId !== run.id) return undefined;
      const step = run.plan.steps.find((s) => s.id === id.step);
      const installationId = run.options.installationId;
      if (!step || typeof installationId !== 'number') return undefined;
      // A teardown is current while it has environments left to remove; a step's attempt while
      // it is the step's queued attempt (the same judgement as for its results: checks.ts).
      const current = attemptId.teardown ? step.kind === 'deploy' && run.environments.some((e) => e.state === 'ready') : currentAttempt(run, attemptId);
      const facts: AttemptFacts = {
        current,
        repo: link.repo,
        // The ref the workflow dispatcher dispatches on (adapters/dispatch/workflow.ts).
        defaultBranch:
          typeof run.options.defaultBranch === 'string' ? run.options.defaultBranch : (run.plan.changeSet.find((r) => r.role === 'primary')?.base ?? 'main'),
        ...(link.workflowRunId !== undefined ? { workflowRunId: link.workflowRunId } : {}),
        installationId,
        repositories: run.plan.changeSet.map((r) => r.repo),
        stepKind: step.kind,
      };
      return facts;
    },
    async exchanged(id) {
      const link = await deps.links.attempt(externalIdOf(id));
      if (link && !link.exchanged) await deps.links.saveAttempt({ ...link, exchanged: true });
    },
  };
}
