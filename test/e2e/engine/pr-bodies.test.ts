// Pull requests a person can read, in the embedded mode (issue #27 item 4): each body says what
// changed in its repository (the agent's words, the files with their lines), links the issue and
// the run's other PRs as `owner/repo#N`, and shows where the run stands with the command that
// approves it, kept current as the run moves on; `conveyor pr` shows them with their diffs.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cli } from '../../helpers/cli.ts';
import { createFleet, RIGHT_FIRST_TIME, type Fleet } from '../../helpers/fleet.ts';
import { git } from '../../helpers/repos.ts';

describe('pull request bodies (embedded mode)', () => {
  let fleet: Fleet;
  beforeEach(() => {
    fleet = createFleet();
  });
  afterEach(() => fleet.cleanup());

  it('say what changed, link the issue and siblings, show the state and how to approve, and follow the run', async () => {
    fleet.setScript({ ...RIGHT_FIRST_TIME, result: { '1': { summary: 'Added the endpoint and its call site.' } } });
    const waiting = await cli(fleet.runArgs('--title', 'Add the endpoint', '--issue', '4'));
    expect(waiting.code, waiting.stdout + waiting.stderr).toBe(3);

    const shown = await cli(['pr', 'web-4', '--state', fleet.state]);
    expect(shown.code, shown.stderr).toBe(0);
    const out = shown.stdout;
    // Titles cite the issue as GitHub would link it from each repository.
    expect(out).toContain('\n  Add the endpoint (#4)\n');
    expect(out).toContain('\n  Add the endpoint (acme/web#4)\n');
    expect(out).toContain('    Part of acme/web#4: Add the endpoint');
    expect(out).toContain('    Closes #4: Add the endpoint');
    expect(out).toContain('    ### What changed in acme/api');
    expect(out).toContain('    > Added the endpoint and its call site.');
    expect(out).toContain('    - `api-4.txt` +1 −0');
    expect(out).toContain('    - `web-4.txt` +1 −0');
    expect(out).toMatch(/^ {4}- acme\/api#\d+ \(this pull request\): file:\/\/\S+$/m);
    expect(out).toContain('    | `test` | gate | ✅ passed |');
    expect(out).toContain('    | `approve` | approval | ✋ waiting for approval (0 of 1) |');
    expect(out).toContain(`run \`conveyor approve web-4 --state ${fleet.state}\``);
    // The diffs, as the PR's Files tab shows them.
    expect(out).toContain('    +call site');
    expect(out).toContain('    +endpoint');

    const approved = await cli(['approve', 'web-4', '--as', 'alice', '--state', fleet.state]);
    expect(approved.code, approved.stdout + approved.stderr).toBe(0);
    const after = (await cli(['pr', 'web-4', '--state', fleet.state, '--no-diff'])).stdout;
    expect(after).toContain('    | `approve` | approval | ✅ approved by alice |');
    expect(after).toContain('    | `ship` | merge | ✅ merged |');
    expect(after).not.toContain('To approve');
    expect(after).not.toContain('+call site');
    // Merge subjects cite the issue by `owner/repo#N` outside its own repository.
    expect(git(fleet.remotes.bare('acme/api'), 'log', '-1', '--format=%s', 'main')).toBe('Add the endpoint (acme/web#4)');
    expect(git(fleet.remotes.bare('acme/web'), 'log', '-1', '--format=%s', 'main')).toBe('Add the endpoint (#4)');
  });
});
