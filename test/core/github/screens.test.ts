// The five GitHub texts of docs/screenshots (test/helpers/github-texts.ts), rendered as Conveyor
// writes them, without a browser: each says what a person needs there (the state, the command
// that continues the run, the cost), and none leaves a check run in progress once the run waits.
import { describe, expect, it } from 'vitest';
import { githubTextScenes, type Scene } from '../../helpers/github-texts.ts';

const scenes = new Map(githubTextScenes().map((s) => [s.name, s]));
const get = (name: string): Scene => scenes.get(name)!;

describe('the texts of the screenshots', () => {
  it('are the five moments the docs show', () => {
    expect([...scenes.keys()]).toEqual(['running', 'repair', 'approval', 'failure', 'finished']);
    for (const s of scenes.values()) {
      // Times as people read them, no empty blocks, and one tracking comment per run.
      expect(s.comment).not.toMatch(/\d{4}-\d\d-\d\dT\d\d:/);
      expect(s.comment).not.toMatch(/```[a-z]*\n\s*```/);
      expect(s.comment.startsWith('<!-- conveyor:tracking run=web-7 -->')).toBe(true);
    }
  });

  it('a running run: what runs and since when, the command that stops it; only its summary in progress', () => {
    const s = get('running');
    expect(s.comment).toContain('> 🔄 **Running** `test` (attempt 1, since 10:04 UTC). To stop the run, comment `/conveyor cancel`.');
    expect(s.summary).toMatchObject({ status: 'in_progress', title: 'running test: 1 of 5 steps succeeded' });
    expect(s.comment).toContain('**Usage:** $0.84 · 48,200 tokens in, 6,100 out · 14 turns · budget $1.20');
  });

  it('a repair: named as one in the comment and the Checks tab, the failed attempt beside it', () => {
    const s = get('repair');
    expect(s.comment).toContain('> 🔄 **Running** `test` (repair 1, since 10:05 UTC) after attempt 1 failed: gate test failed in acme/web.');
    expect(s.comment).toContain('| `test` | gate | 🔧 repairing | 2 (repair 1) | <1m so far, since 10:05 UTC |');
    expect(s.checks.map((c) => [c.name, c.status, c.conclusion ?? ''])).toEqual([
      ['conveyor', 'in_progress', ''],
      ['conveyor / implement', 'completed', 'success'],
      ['conveyor / test', 'completed', 'failure'],
      ['conveyor / test (repair 1)', 'in_progress', ''],
    ]);
  });

  it('a wait for approval: the command, the button, who counts; the summary and the approval action_required', () => {
    const s = get('approval');
    expect(s.comment).toContain(
      "comment `/conveyor approve` on this issue or on one of the run's pull requests, or press **Approve** on the [`conveyor / approve`]",
    );
    expect(s.comment).toContain('To reject, comment `/conveyor reject` followed by why.');
    expect(s.summary).toMatchObject({
      status: 'completed',
      conclusion: 'action_required',
      title: 'waiting for approval of approve: comment /conveyor approve',
    });
    expect(s.checks.find((c) => c.name === 'conveyor / approve')).toMatchObject({ conclusion: 'action_required', actions: ['Approve', 'Reject'] });
    // The repair that made the gate pass ends neutral, saying so: not a green tick.
    expect(s.checks.find((c) => c.name === 'conveyor / test (repair 1)')).toMatchObject({
      conclusion: 'neutral',
      title: 'repair pushed a fix: test runs again on it (no verdict yet)',
    });
  });

  it('a failure: the reason and `/conveyor retry test`; the summary action_required, nothing in progress', () => {
    const s = get('failure');
    expect(s.comment).toContain('> ❌ **`test` failed**: gate failed after 2 repairs');
    expect(s.comment).toContain('To run it again, comment `/conveyor retry test`');
    expect(s.comment).toContain('to stop the run, `/conveyor cancel`');
    expect(s.summary).toMatchObject({ status: 'completed', conclusion: 'action_required', title: 'test failed: comment /conveyor retry test' });
    expect(s.checks.filter((c) => c.status !== 'completed')).toEqual([]);
  });

  it('a finished run: how long it took and what it cost, its budget overrun in bold', () => {
    const s = get('finished');
    expect(s.comment).toContain('> ✅ **Succeeded**: 5 of 5 steps in 23m 15s.');
    expect(s.comment).toContain('**Usage:** $1.36 · 82,000 tokens in, 9,400 out · 22 turns · **budget $1.20 spent, $0.16 over**');
    expect(s.summary).toMatchObject({ status: 'completed', conclusion: 'success', title: 'succeeded: 5 of 5 steps in 23m 15s' });
    expect(s.checks.filter((c) => c.status !== 'completed')).toEqual([]);
  });
});
