// The tracking comment and the summary check: what people read of a run on GitHub.
import { describe, expect, it } from 'vitest';
import { renderRunTable, renderSummaryCheck, renderTrackingComment, trackingMarker } from '../../../core/github/tracking.ts';
import type { RunEvent } from '../../../core/run/types.ts';
import { planOf } from '../../helpers/plans.ts';
import { AT, current, start, step } from '../run/drive.ts';

const later = (seconds: number): string => new Date(Date.parse(AT) + seconds * 1000).toISOString();
const at = (event: RunEvent, seconds: number): RunEvent => ({ ...event, at: later(seconds) });

describe('tracking comment', () => {
  const plan = planOf([
    { id: 'implement', kind: 'code' },
    { id: 'test', kind: 'gate' },
  ]);

  it("shows each step's current attempt: its dispatch, its own duration (not an earlier lost one's) and its links", () => {
    let run = start(plan).run;
    run = step(run, at(current(run, 'implement', 'success'), 30)).run;
    const t = run.steps.test!;
    run = step(run, { type: 'step-lost', at: later(100), step: 'test', attempt: t.attempt, epoch: t.epoch, reason: 'runner vanished' }).run;
    const text = renderTrackingComment(run, { test: { checkRunUrl: 'https://c/1', workflowRunUrl: 'https://w/2' } }, later(160));
    expect(text.split('\n')[0]).toBe(trackingMarker(run.id));
    expect(text).toContain('| `implement` | code | ✅ succeeded | 1 | 30s |  |');
    // The re-dispatched attempt started at 100 s (not the lost one, at 30 s): it has run a minute since then.
    expect(text).toContain(
      '| `test` | gate | 🔄 running | 1, dispatch 2 | 1m so far, since 00:01 UTC | [check run](https://c/1) · [workflow run](https://w/2) |',
    );
    expect(renderSummaryCheck(run, {}, later(160))).toMatchObject({ status: 'in_progress', title: 'running test: 1 of 2 steps succeeded' });
  });

  it('keeps a reason with a pipe or a line break inside its table cell, and a cancelled run completes its check as cancelled', () => {
    let run = start(plan).run;
    run = step(run, { type: 'cancel', at: AT, by: 'bob', reason: 'wrong | issue\nsorry' }).run;
    const check = renderSummaryCheck(run, {}, AT);
    expect(check).toMatchObject({ status: 'completed', conclusion: 'cancelled' });
    expect(check.summary).toContain('⛔ cancelled: cancelled by bob: wrong \\| issue sorry |');
    expect(check.summary).toContain('> ⛔ **Cancelled**: cancelled by bob: wrong \\| issue sorry.');
  });

  it('shows what agents and commands said as text: no links, markup, mentions or hidden comments of theirs, and environment links only to http(s)', () => {
    let run = start(plan).run;
    const evil = 'done [click](javascript:alert(1)) @octocat <!-- hi --> **x**';
    run = {
      ...run,
      steps: { ...run.steps, [plan.steps[0]!.id]: { ...run.steps[plan.steps[0]!.id]!, reason: evil } },
      environments: [
        { service: 'web', envId: 'e1', state: 'ready', url: 'javascript:alert(document.cookie)' },
        { service: 'api @octocat', envId: 'e2', state: 'ready', url: 'https://api.preview.example.com/' },
      ],
    };
    const table = renderRunTable(run, {}, AT);
    expect(table).not.toContain('](javascript:');
    expect(table).not.toContain('@octocat');
    expect(table).not.toContain('<!--');
    expect(table).toContain('\\[click\\]\\(javascript:alert\\(1\\)\\) &#64;octocat &lt;!-- hi --&gt; \\*\\*x\\*\\*');
    expect(table).toContain('**Environments:** web: ready, [api &#64;octocat](https://api.preview.example.com/)');
  });
});
