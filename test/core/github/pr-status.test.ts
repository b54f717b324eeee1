// The status section of the run's PR bodies: each step's state in a reviewer's words, and while a
// person must act, the command of the mode the run is in (issue #27 item 4).
import { describe, expect, it } from 'vitest';
import { embeddedCommands, GITHUB_COMMANDS, renderPrStatus } from '../../../core/github/pr-status.ts';
import type { Run } from '../../../core/run/types.ts';
import { planOf } from '../../helpers/plans.ts';
import { AT, current, start, step, succeed } from '../run/drive.ts';

const plan = planOf([
  { id: 'implement', kind: 'code' },
  { id: 'test', kind: 'gate' },
  { id: 'review', kind: 'review' },
  { id: 'approve', kind: 'approval' },
  { id: 'ship', kind: 'merge' },
]);

function waitingForApproval(): Run {
  return succeed(start(plan).run, 'implement', 'test', 'review');
}

describe('renderPrStatus', () => {
  it('shows the gates, the review and the approval, and how to approve on GitHub', () => {
    const text = renderPrStatus(waitingForApproval(), GITHUB_COMMANDS);
    expect(text).toContain('| `test` | gate | ✅ passed |');
    expect(text).toContain('| `review` | review | ✅ passed |');
    expect(text).toContain('| `approve` | approval | ✋ waiting for approval (0 of 1) |');
    expect(text).toContain('| `ship` | merge | ⏳ pending |');
    expect(text).toContain(
      '**To approve** what this change holds now, comment `/conveyor approve` on this pull request or the issue; to reject it, `/conveyor reject`.',
    );
  });

  it('gives the offline command with the state database, quoted where it must be', () => {
    const run = waitingForApproval();
    expect(renderPrStatus(run, embeddedCommands(run.id, '/tmp/s/a.db'))).toContain(`run \`conveyor approve ${run.id} --state /tmp/s/a.db\``);
    expect(renderPrStatus(run, embeddedCommands(run.id, "/tmp/my dir/it's.db"))).toContain(`--state '/tmp/my dir/it'\\''s.db'`);
  });

  it('says who approved, a failed gate with its reason and the retry, and where approval comes later', () => {
    let run = succeed(start(plan).run, 'implement');
    const before = renderPrStatus(run, GITHUB_COMMANDS);
    expect(before).toContain('| `test` | gate | 🔄 running (attempt 1) |');
    expect(before).toContain('Approval comes at step `approve`: once it waits, comment `/conveyor approve` on this pull request or the issue.');
    run = step(run, current(run, 'test', 'failure', { error: { code: 'gate-failed', message: 'npm test exited 1 | see `log`' } })).run;
    const failed = renderPrStatus(run, GITHUB_COMMANDS);
    expect(failed).toMatch(/\| `test` \| gate \| ❌ failed: .*npm test exited 1 \\\| see \\`log\\`.* \|/);
    expect(failed).toContain('**To run `test` again**, comment `/conveyor retry test` on this pull request or the issue.');

    run = waitingForApproval();
    run = step(run, { type: 'decision', at: AT, step: 'approve', decision: 'approve', by: 'bob', heads: {} }).run;
    expect(renderPrStatus(run, GITHUB_COMMANDS)).toContain('| `approve` | approval | ✅ approved by bob |');
  });
});
