import { describe, expect, it } from 'vitest';
import { currentAttempt, nextWave, reduce } from '../../../core/run/reducer.ts';
import type { Run, RunEvent } from '../../../core/run/types.ts';
import { inputsDigest } from '../../../core/contract/receipt.ts';
import { designPlan, planOf, resultOf } from '../../helpers/plans.ts';
import { AT, current, newRun, start, statuses, step, succeed, types } from './drive.ts';

const linear = planOf([
  { id: 'implement', kind: 'code' },
  { id: 'test', kind: 'gate' },
  { id: 'ship', kind: 'merge' },
]);

describe('createRun and started', () => {
  it('creates every step pending, running, version 0', () => {
    const run = newRun(linear);
    expect(run.version).toBe(0);
    expect(run.status).toBe('running');
    expect(statuses(run)).toEqual({ implement: 'pending', test: 'pending', ship: 'pending' });
    expect(run.requester).toBe('alice');
    expect(currentAttempt(run, 'implement')).toBeUndefined();
    expect(nextWave(run)).toEqual(['implement']);
  });

  it('started dispatches the first wave with keyed effects and a report', () => {
    const t = start(designPlan());
    expect(types(t.effects)).toEqual(['dispatch:implement:1:0', 'report']);
    expect(t.effects[0]?.key).toBe('r1:implement:1:0:dispatch');
    expect(t.effects[1]?.key).toBe('r1:report:1');
    expect(t.run.steps.implement?.status).toBe('queued');
    // The attempt records the digest of the payload its dispatch carries: its result must be sealed against it.
    const dispatch = t.effects[0];
    expect(dispatch?.type === 'dispatch' && dispatch.payload).toMatchObject({ runId: 'r1', step: { id: 'implement' }, attempt: 1, epoch: 0, mode: 'run' });
    expect(t.run.steps.implement?.attempts).toEqual([
      { attempt: 1, epoch: 0, mode: 'run', startedAt: AT, inputs: dispatch?.type === 'dispatch' && inputsDigest(dispatch.payload!) },
    ]);
    expect(currentAttempt(t.run, 'implement')).toMatchObject({ attempt: 1, epoch: 0, mode: 'run' });
  });

  it('a second started changes nothing', () => {
    const t = start(linear);
    const again = step(t.run, { type: 'started', at: AT });
    expect(again.run).toBe(t.run);
    expect(again.effects).toEqual([]);
  });

  it('independent steps of a wave start together; merge gets a merge effect', () => {
    let run = start(designPlan()).run;
    const t = step(run, current(run, 'implement', 'success'));
    expect(types(t.effects)).toEqual(['dispatch:test:1:0', 'dispatch:review:1:0', 'dispatch:preview:1:0', 'report']);
    run = succeed(t.run, 'test', 'review', 'preview');
    expect(run.status).toBe('waiting');
    expect(run.steps.approve?.status).toBe('waiting');
    expect(run.waitingFor).toContain('approval of step "approve"');
    const approved = step(run, { type: 'decision', at: AT, decision: 'approve', by: 'bob' });
    expect(types(approved.effects)).toEqual(['merge:ship:1:0', 'report']);
    expect(approved.effects[0]?.key).toBe('r1:ship:1:0:merge');
    expect(approved.run.status).toBe('running');
  });

  it('an approval whose siblings are still queued keeps the run running until they settle', () => {
    const plan = planOf([
      { id: 'implement', kind: 'code' },
      { id: 'approve', kind: 'approval', needs: ['implement'] },
      { id: 'test', kind: 'gate', needs: ['implement'] },
      { id: 'ship', kind: 'merge', needs: ['approve', 'test'] },
    ]);
    let run = succeed(start(plan).run, 'implement');
    expect(statuses(run)).toMatchObject({ approve: 'waiting', test: 'queued' });
    expect(run.status).toBe('running');
    run = succeed(run, 'test');
    expect(run.status).toBe('waiting');
    // The approval may come while other steps run, too.
    expect(step(run, { type: 'decision', at: AT, decision: 'approve', by: 'bob' }).run.steps.ship?.status).toBe('queued');
  });

  it('a plan that succeeds end to end tears down ready environments', () => {
    let run = succeed(start(linear).run, 'implement', 'test');
    const env = { service: 'web', envId: 'r1-web', state: 'ready' as const, url: 'http://x' };
    run = { ...run, environments: [env, { service: 'api', envId: 'r1-api', state: 'failed' as const }] };
    const t = step(run, current(run, 'ship', 'success'));
    expect(t.run.status).toBe('succeeded');
    expect(t.effects).toContainEqual({ type: 'teardown', key: `r1:teardown:${run.version + 1}`, environments: [env] });
    const kept = step({ ...run, settings: { keepEnvs: true } }, current(run, 'ship', 'success'));
    expect(kept.run.status).toBe('succeeded');
    expect(types(kept.effects)).toEqual(['report']);
  });
});

describe('results', () => {
  it('ignores results of other attempts, epochs, modes, runs and unknown steps', () => {
    const run = start(linear).run;
    const bad: RunEvent[] = [
      { type: 'step-completed', at: AT, result: resultOf('r1', 'implement', 2, 0, 'success') },
      { type: 'step-completed', at: AT, result: resultOf('r1', 'implement', 1, 1, 'success') },
      { type: 'step-completed', at: AT, result: resultOf('r1', 'implement', 1, 0, 'success', { mode: 'repair' }) },
      { type: 'step-completed', at: AT, result: resultOf('other', 'implement', 1, 0, 'success') },
      { type: 'step-completed', at: AT, result: resultOf('r1', 'nope', 1, 0, 'success') },
      { type: 'step-completed', at: AT, result: resultOf('r1', 'test', 1, 0, 'success') }, // not queued
    ];
    for (const e of bad) {
      const t = reduce(run, e);
      expect(t.run).toBe(run);
      expect(t.effects).toEqual([]);
    }
  });

  it('a duplicate result changes nothing the second time', () => {
    const run = start(linear).run;
    const e = current(run, 'implement', 'success');
    const once = step(run, e);
    const twice = step(once.run, e);
    expect(twice.run).toBe(once.run);
    expect(twice.effects).toEqual([]);
  });

  it('records the attempt, keeps the latest PR per repo and environment per service', () => {
    let run = start(
      planOf([
        { id: 'implement', kind: 'code' },
        { id: 'preview', kind: 'deploy' },
        { id: 'more', kind: 'code' },
      ]),
    ).run;
    const pr = (repo: string, head: string) => ({ repo, number: 1, url: `u/${repo}`, branch: 'conveyor/web-7', head });
    const completed = current(run, 'implement', 'success', { prs: [pr('acme/web', 'a1'), pr('acme/api', 'b1')] });
    run = step(run, completed).run;
    expect(run.steps.implement?.attempts[0]).toMatchObject({
      conclusion: 'success',
      receipt: completed.type === 'step-completed' && completed.result.receipt,
      finishedAt: AT,
    });
    expect(run.steps.implement?.result?.conclusion).toBe('success');
    const env = (state: 'ready' | 'failed') => ({ service: 'web', envId: 'e', state });
    run = step(run, current(run, 'preview', 'success', { environments: [env('failed')] })).run;
    run = step(run, current(run, 'more', 'success', { prs: [pr('acme/web', 'a2')], environments: [env('ready')] })).run;
    expect(run.prs.map((p) => `${p.repo}@${p.head}`)).toEqual(['acme/web@a2', 'acme/api@b1']);
    expect(run.environments).toEqual([env('ready')]);
  });

  it('a failure with no repair fails the step, waits for retry or cancel, and starts no dependent', () => {
    const run = start(linear).run;
    const t = step(run, current(run, 'implement', 'failure', { error: { code: 'agent-failed', message: 'exit 1' } }));
    expect(t.run.status).toBe('waiting');
    expect(t.run.steps.implement).toMatchObject({ status: 'failed', reason: 'code failed: agent-failed: exit 1' });
    expect(t.run.waitingFor).toMatch(/^retry or cancel: step "implement" failed/);
    expect(types(t.effects)).toEqual(['report']);
    expect(t.run.steps.test?.status).toBe('pending');
  });

  it('a failure with siblings still queued keeps running, then waits', () => {
    const plan = planOf([
      { id: 'a', kind: 'gate', needs: [] },
      { id: 'b', kind: 'gate', needs: [] },
      { id: 'c', kind: 'merge', needs: ['a', 'b'] },
    ]);
    let run = start(plan).run;
    run = step(run, current(run, 'a', 'failure')).run;
    expect(run.status).toBe('running');
    run = succeed(run, 'b');
    expect(run.status).toBe('waiting');
    expect(run.steps.c?.status).toBe('pending');
  });

  it('neutral counts as done', () => {
    const run = start(linear).run;
    expect(step(run, current(run, 'implement', 'neutral')).run.steps.implement?.status).toBe('succeeded');
  });
});

describe('repairs', () => {
  const plan = planOf([
    { id: 'implement', kind: 'code' },
    { id: 'test', kind: 'gate', repair: 2 },
    { id: 'review', kind: 'review', repair: 1 },
  ]);

  it('gate fails -> repair with findings -> gate again, bounded by max-attempts', () => {
    let run = succeed(start(plan).run, 'implement');
    let t = step(run, current(run, 'test', 'failure', { findings: 'FAIL a.test.js' }));
    expect(types(t.effects)).toEqual(['dispatch:test:2:0:repair', 'report']);
    expect(t.effects[0]).toMatchObject({ ref: { mode: 'repair' }, findings: 'FAIL a.test.js' });
    expect(t.run.steps.test).toMatchObject({ status: 'queued', mode: 'repair', repairs: 1 });
    expect(t.run.steps.test?.result?.conclusion).toBe('failure');
    run = t.run;
    // The repair pushes new heads.
    const pr = { repo: 'acme/web', number: 1, url: 'u', branch: 'b', head: 'c2' };
    t = step(run, current(run, 'test', 'neutral', { prs: [pr] }));
    expect(types(t.effects)).toEqual(['dispatch:test:3:0', 'report']);
    expect(t.run.prs).toEqual([pr]);
    run = step(t.run, current(t.run, 'test', 'failure')).run; // repair 2
    expect(run.steps.test).toMatchObject({ mode: 'repair', attempt: 4, repairs: 2 });
    run = succeed(run, 'test'); // repair done -> attempt 5
    t = step(run, current(run, 'test', 'failure', { error: { code: 'gate-failed', message: '1 failing' } }));
    expect(t.run.steps.test).toMatchObject({ status: 'failed', attempt: 5, repairs: 2 });
    expect(t.run.steps.test?.reason).toBe('gate failed after 2 repairs (max-attempts 2): gate-failed: 1 failing');
    expect(t.run.waitingFor).toContain('retry or cancel');
    expect(t.run.steps.review?.status).toBe('pending');
  });

  it('review fail renders the review findings for the repair', () => {
    let run = succeed(start(plan).run, 'implement', 'test');
    const review = {
      verdict: 'fail' as const,
      findings: ['naming is off', { file: 'a.ts', line: 3, message: 'null deref' }, { other: 1 }],
      scores: { complexity: 0.1, risk: 0.2, impact: 0.3 },
      agent: 'reviewer',
      independent: true,
    };
    const t = step(run, current(run, 'review', 'failure', { review }));
    expect(t.effects[0]).toMatchObject({ ref: { mode: 'repair' }, findings: '- naming is off\n- a.ts:3: null deref\n- {"other":1}' });
    expect(t.run.steps.review?.attempts[1]?.findings).toContain('null deref');
    run = t.run;
    run = step(run, current(run, 'review', 'failure', { error: { code: 'agent-failed', message: 'boom' } })).run;
    expect(run.steps.review).toMatchObject({ status: 'failed', reason: 'repair attempt 2 failed: agent-failed: boom' });
  });
});

describe('lost attempts', () => {
  const lost = (run: Run, s: string, attempt: number, epoch: number): RunEvent => ({
    type: 'step-lost',
    at: AT,
    step: s,
    attempt,
    epoch,
    reason: 'workflow vanished',
  });

  it('re-dispatches the same attempt with the next epoch, twice, then fails', () => {
    let run = start(linear).run;
    let t = step(run, lost(run, 'implement', 1, 0));
    expect(types(t.effects)).toEqual(['dispatch:implement:1:1', 'report']);
    expect(t.run.steps.implement?.attempts.map((a) => `${a.attempt}.${a.epoch}:${a.conclusion ?? '-'}`)).toEqual(['1.0:lost', '1.1:-']);
    run = t.run;
    // The late result of epoch 0 and a duplicate loss are both ignored.
    expect(reduce(run, { type: 'step-completed', at: AT, result: resultOf('r1', 'implement', 1, 0, 'success') }).run).toBe(run);
    expect(reduce(run, lost(run, 'implement', 1, 0)).run).toBe(run);
    run = step(run, lost(run, 'implement', 1, 1)).run;
    expect(run.steps.implement).toMatchObject({ epoch: 2, losses: 2, status: 'queued' });
    t = step(run, lost(run, 'implement', 1, 2));
    expect(t.run.steps.implement).toMatchObject({ status: 'failed', reason: 'attempt 1 was lost 3 times (last: workflow vanished)' });
    expect(t.run.status).toBe('waiting');
  });

  it('a lost repair is dispatched again with its findings; a lost merge as a merge', () => {
    const plan = planOf([
      { id: 'test', kind: 'gate', repair: 1 },
      { id: 'ship', kind: 'merge' },
    ]);
    let run = start(plan).run;
    run = step(run, current(run, 'test', 'failure', { findings: 'F' })).run;
    const t = step(run, lost(run, 'test', 2, 0));
    expect(t.effects[0]).toMatchObject({ type: 'dispatch', ref: { mode: 'repair', attempt: 2, epoch: 1 }, findings: 'F' });
    run = succeed(succeed(t.run, 'test'), 'test');
    const m = step(run, lost(run, 'ship', 1, 0));
    expect(types(m.effects)).toEqual(['merge:ship:1:1', 'report']);
  });
});

describe('stored results are verified before the run acts on them', () => {
  it('a failed gate edited into a success in the store counts as not run: an approval after it runs the gate again instead of merging', () => {
    const plan = planOf([
      { id: 'implement', kind: 'code' },
      { id: 'test', kind: 'gate' },
      { id: 'approve', kind: 'approval' },
      { id: 'ship', kind: 'merge' },
    ]);
    let run = start(plan).run;
    run = step(run, current(run, 'implement', 'success')).run;
    run = step(run, current(run, 'test', 'failure', { error: { code: 'gate-failed', message: 'npm test exited 1' } })).run;
    expect(run.steps.test?.status).toBe('failed');
    // Someone edits the state database: the gate "succeeded", the approval waits.
    const test = run.steps.test!;
    const edited: Run = {
      ...run,
      status: 'waiting',
      steps: {
        ...run.steps,
        test: {
          ...test,
          status: 'succeeded',
          result: { ...(test.attempts.length ? run.steps.test!.result! : ({} as never)), conclusion: 'success', error: undefined },
        },
        approve: { ...run.steps.approve!, status: 'waiting' },
      },
    };
    const t = step(edited, { type: 'decision', at: AT, decision: 'approve', by: 'bob' });
    expect(types(t.effects)).toEqual(['reply', 'dispatch:test:2:0', 'reply', 'report']);
    const replies = t.effects.flatMap((e) => (e.type === 'reply' ? [e.text] : []));
    expect(replies).toEqual([
      'the stored result of step "test" does not verify against its receipt: it counts as not run, and the run resumes from step "test".',
      'run r1 is running `test`; nothing waits for an approval.',
    ]);
    expect(statuses(t.run)).toEqual({ implement: 'succeeded', test: 'queued', approve: 'pending', ship: 'pending' });
  });
});
