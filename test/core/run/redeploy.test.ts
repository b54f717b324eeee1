// Environments flow forward and go stale: a step after a deploy gets what the deploy stood up (in
// its payload), and a repair after the deploy that changes a repository it deployed from sends
// the deploy again before the step that used its environments runs again.
import { describe, expect, it } from 'vitest';
import type { Plan } from '../../../core/plan/types.ts';
import type { Run } from '../../../core/run/types.ts';
import type { Environment } from '../../../core/contract/wire.ts';
import { buildPayload } from '../../../core/run/payload.ts';
import { planOf } from '../../helpers/plans.ts';
import { AT, current, start, statuses, step, types } from './drive.ts';

const deploy = { run: 'deploy', timeoutMinutes: 5 };

/** code -> deploy (web and api) -> e2e gate (repaired by the coder) -> approval -> merge, over two repositories. */
function e2ePlan(): Plan {
  const base = planOf([
    { id: 'implement', kind: 'code' },
    { id: 'preview', kind: 'deploy' },
    { id: 'e2e', kind: 'gate', repair: 2 },
    { id: 'approve', kind: 'approval' },
    { id: 'ship', kind: 'merge' },
  ]);
  return {
    ...base,
    steps: base.steps.map((s) => (s.kind === 'deploy' ? { ...s, services: ['api', 'web'] } : s)),
    services: {
      web: { name: 'web', repo: 'acme/web', base: 'main', dependsOn: ['api'], deploy },
      api: { name: 'api', repo: 'acme/api', base: 'main', dependsOn: [], deploy },
      docs: { name: 'docs', repo: 'acme/docs', base: 'main', dependsOn: [], deploy },
    },
    changeSet: [
      { repo: 'acme/web', base: 'main', role: 'primary', services: ['web'] },
      { repo: 'acme/api', base: 'main', role: 'sibling', services: ['api'] },
      { repo: 'acme/docs', base: 'main', role: 'sibling', services: ['docs'] },
    ],
    deployWaves: [['api', 'docs'], ['web']],
  };
}

const pr = (repo: string, head: string) => ({ repo, number: 1, url: `https://example.test/${repo}/pull/1`, branch: 'conveyor/web-7', head });
const env = (service: string, url: string, commit: string): Environment => ({
  service,
  envId: `r1-${service}`,
  state: 'ready',
  url,
  commit,
  processMark: `mark-${service}`,
  outputTail: 'deployed',
});

/** The e2e gate has failed once against the first previews: its repair is under way. */
function repairUnderWay(): Run {
  let run = start(e2ePlan()).run;
  run = step(run, current(run, 'implement', 'success', { prs: [pr('acme/web', 'w1'), pr('acme/api', 'a1')] })).run;
  run = step(run, current(run, 'preview', 'success', { environments: [env('api', 'http://api.test', 'a1'), env('web', 'http://web.test', 'w1')] })).run;
  const failed = step(run, current(run, 'e2e', 'failure', { findings: 'the page shows $12.5' }));
  expect(types(failed.effects)).toEqual(['dispatch:e2e:2:0:repair', 'report']);
  return failed.run;
}

describe('environments flow forward', () => {
  it('a step after a deploy gets the ready environments it stood up, without the deploy bookkeeping; a step before it gets none', () => {
    const run = repairUnderWay();
    const gate = buildPayload(run, { step: 'e2e', attempt: 2, epoch: 0, mode: 'repair' });
    expect(gate.environments).toEqual([
      { service: 'api', envId: 'r1-api', state: 'ready', url: 'http://api.test', commit: 'a1' },
      { service: 'web', envId: 'r1-web', state: 'ready', url: 'http://web.test', commit: 'w1' },
    ]);
    expect(buildPayload(run, { step: 'implement', attempt: 2, epoch: 0, mode: 'repair' }).environments).toEqual([]);
    // The deploy itself resumes from everything it recorded.
    expect(buildPayload(run, { step: 'preview', attempt: 2, epoch: 0, mode: 'run' }).environments[0]).toMatchObject({ processMark: 'mark-api' });
  });
});

describe('a repair after a deploy', () => {
  it('that changes a deployed repository sends the deploy again, then runs the step again against what it stands up', () => {
    const run = repairUnderWay();
    const t = step(run, current(run, 'e2e', 'success', { prs: [pr('acme/web', 'w2')] }));
    expect(types(t.effects)).toEqual(['dispatch:preview:2:0', 'report']);
    expect(statuses(t.run)).toEqual({ implement: 'succeeded', preview: 'queued', e2e: 'pending', approve: 'pending', ship: 'pending' });
    expect(t.run.steps.e2e?.reason).toBe('runs again once "preview" has deployed again (the repair of step "e2e" changed acme/web)');
    // The same failure is still being repaired: its repairs stay counted.
    expect(t.run.steps.e2e?.repairs).toBe(1);
    // The deploy is told what it stood up before: it keeps what did not change (core/steps/deploy-plan.ts).
    const payload = t.effects[0]?.type === 'dispatch' ? t.effects[0].payload : undefined;
    expect(payload?.environments.map((e) => `${e.service}@${e.commit}`)).toEqual(['api@a1', 'web@w1']);

    const redeployed = step(t.run, current(t.run, 'preview', 'success', { environments: [env('web', 'http://web2.test', 'w2')] }));
    expect(types(redeployed.effects)).toEqual(['dispatch:e2e:3:0', 'report']);
    const again = redeployed.effects[0]?.type === 'dispatch' ? redeployed.effects[0].payload : undefined;
    expect(again?.environments.map((e) => e.url)).toEqual(['http://api.test', 'http://web2.test']);
  });

  it('keeps max-attempts: a repair that redeploys and still fails uses up the repairs, then waits for a person', () => {
    let run = repairUnderWay();
    for (const head of ['w2', 'w3']) {
      run = step(run, current(run, 'e2e', 'success', { prs: [pr('acme/web', head)] })).run;
      run = step(run, current(run, 'preview', 'success', { environments: [env('web', 'http://web.test', head)] })).run;
      run = step(run, current(run, 'e2e', 'failure', { findings: 'still $12.5' })).run;
      if (head === 'w2') expect(run.steps.e2e).toMatchObject({ status: 'queued', mode: 'repair', repairs: 2 });
    }
    expect(run.steps.e2e).toMatchObject({ status: 'failed', repairs: 2 });
    expect(run.steps.e2e?.reason).toContain('after 2 repairs (max-attempts 2)');
  });

  it('that changes only a repository no deploy before it stood up runs the step again at once', () => {
    const run = repairUnderWay();
    const t = step(run, current(run, 'e2e', 'success', { prs: [pr('acme/docs', 'd1')] }));
    expect(types(t.effects)).toEqual(['dispatch:e2e:3:0', 'report']);
    expect(t.run.steps.preview?.status).toBe('succeeded');
  });

  it('that changes nothing runs the step again at once', () => {
    const run = repairUnderWay();
    const t = step(run, current(run, 'e2e', 'success', { prs: [pr('acme/web', 'w1')] }));
    expect(types(t.effects)).toEqual(['dispatch:e2e:3:0', 'report']);
  });

  it('of a step before the deploy changes nothing of the deploy (it has not run)', () => {
    const base = e2ePlan();
    // The gate before the deploy: the deploy needs it.
    const plan: Plan = {
      ...base,
      steps: base.steps.map((s) => (s.id === 'preview' ? { ...s, needs: ['e2e'] } : s.id === 'e2e' ? { ...s, needs: ['implement'] } : s)),
    };
    let run = start(plan).run;
    run = step(run, current(run, 'implement', 'success', { prs: [pr('acme/web', 'w1')] })).run;
    run = step(run, current(run, 'e2e', 'failure')).run;
    const t = step(run, current(run, 'e2e', 'success', { prs: [pr('acme/web', 'w2')] }));
    expect(types(t.effects)).toEqual(['dispatch:e2e:3:0', 'report']);
  });
});

describe('a push after a deploy', () => {
  it('sends the deploy again before the steps after it run again', () => {
    let run = start(e2ePlan()).run;
    run = step(run, current(run, 'implement', 'success', { prs: [pr('acme/web', 'w1'), pr('acme/api', 'a1')] })).run;
    run = step(run, current(run, 'preview', 'success', { environments: [env('api', 'http://api.test', 'a1'), env('web', 'http://web.test', 'w1')] })).run;
    run = step(run, current(run, 'e2e', 'success')).run;
    expect(run.steps.approve?.status).toBe('waiting');
    const t = step(run, { type: 'pr-pushed', at: AT, repo: 'acme/api', head: 'a2', by: 'mallory' });
    expect(types(t.effects)).toEqual(['dispatch:preview:2:0', 'report']);
    expect(statuses(t.run)).toMatchObject({ preview: 'queued', e2e: 'pending', approve: 'pending' });
    expect(t.run.steps.e2e?.reason).toBe('runs again: mallory pushed a2 to acme/api');
    // The deploy goes first: the gate runs on what it stands up from the new head.
    const redeployed = step(t.run, current(t.run, 'preview', 'success', { environments: [env('api', 'http://api2.test', 'a2')] }));
    expect(types(redeployed.effects)).toEqual(['dispatch:e2e:2:0', 'report']);
  });
});
