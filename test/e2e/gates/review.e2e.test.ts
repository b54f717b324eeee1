// The review step end to end: a verdict or nothing, a failing review repaired, independence, and the
// reviews it posts on the local PR (`conveyor pr RUN` shows them).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { configOf, createOrg, HELLO_CODER, statusOf, type Org } from './setup.ts';

const VERDICT = (verdict: string, findings: string) =>
  `import { writeFileSync } from 'node:fs';\nwriteFileSync(process.env.CONVEYOR_RESULT_FILE, JSON.stringify({ verdict: ${verdict}, findings: ${findings}, scores: { complexity: 0.2, risk: 0.1, impact: 0.3 } }));\n`;

describe('review step', () => {
  let org: Org;
  beforeEach(() => {
    org = createOrg();
    org.script('coder', HELLO_CODER);
  });
  afterEach(() => org.cleanup());

  const run = (issue: string) =>
    org.conveyor('run', '--config', org.config, '--remotes', org.remotes.dir, '--title', 'Say hello', '--issue', issue, '--approve');

  it('fails with reviewer-no-verdict, quoting what a reviewer wrote that is not a verdict', async () => {
    org.script('reviewer', `import { writeFileSync } from 'node:fs';\nwriteFileSync(process.env.CONVEYOR_RESULT_FILE, 'LGTM! ship it ' + 'x'.repeat(2000));\n`);
    org.writeConfig(
      configOf(org, {
        agents: { coder: { model: 'a/claude-sonnet-4-5' }, reviewer: { model: 'b/gpt-5' } },
        steps: '      - { id: implement, kind: code, agent: coder }\n      - { id: review, kind: review, agent: reviewer }',
      }),
    );
    const r = await run('1');
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/reviewer-no-verdict: The reviewer gave no valid verdict: \$CONVEYOR_RESULT_FILE is not JSON/);
    expect(r.stdout).toContain('It wrote: "LGTM! ship it xxx');
    const s = await statusOf(org, 'web-1');
    expect(s.steps.review?.result?.error?.code).toBe('reviewer-no-verdict');
  });

  it('fails a reviewer that changes a checkout, even with a passing verdict', async () => {
    org.script('reviewer', `${VERDICT("'pass'", '[]')}writeFileSync('notes.txt', 'mine');\n`);
    org.writeConfig(
      configOf(org, {
        agents: { coder: {}, reviewer: {} },
        steps: '      - { id: implement, kind: code, agent: coder }\n      - { id: review, kind: review, agent: reviewer }',
      }),
    );
    const r = await run('1');
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/reviewer-changed-files: The reviewer must be read-only, but it changed the checkouts:/);
  });

  it('a failing review sends its findings to the repair agent, then reviews again; an independent pass is in the merge trailers', async () => {
    // The reviewer reads the diff from its prompt and fails a change without a header comment.
    org.script(
      'reviewer',
      `import { readFileSync, writeFileSync } from 'node:fs';
const prompt = readFileSync(process.env.CONVEYOR_PROMPT_FILE, 'utf8');
if (!prompt.includes("+  return 'hello';")) { console.error('reviewer: no diff in the prompt'); process.exit(1); }
const ok = readFileSync('lib.js', 'utf8').includes('// greets politely');
writeFileSync(process.env.CONVEYOR_RESULT_FILE, JSON.stringify({ verdict: ok ? 'pass' : 'fail', findings: ok ? [] : [{ file: 'lib.js', line: 1, message: 'add the header comment "// greets politely"' }], scores: { complexity: 0.1, risk: 0.2, impact: 0.3 } }));
`,
    );
    // The repair agent fixes only what the findings in its prompt ask for.
    org.script(
      'fixer',
      `import { readFileSync, writeFileSync } from 'node:fs';
const prompt = readFileSync(process.env.CONVEYOR_PROMPT_FILE, 'utf8');
if (!prompt.includes('lib.js:1: add the header comment "// greets politely"')) { console.error('fixer: no findings'); process.exit(1); }
writeFileSync('lib.js', '// greets politely\\n' + readFileSync('lib.js', 'utf8'));
`,
    );
    org.writeConfig(
      configOf(org, {
        agents: { coder: { model: 'anthropic/claude-sonnet-4-5' }, reviewer: { model: 'openai/gpt-5' }, fixer: { model: 'anthropic/claude-sonnet-4-5' } },
        steps:
          '      - { id: implement, kind: code, agent: coder }\n      - { id: review, kind: review, agent: reviewer, repair: { agent: fixer, max-attempts: 1 } }\n      - { id: ship, kind: merge }',
      }),
    );
    const r = await run('3');
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const s = await statusOf(org, 'web-3');
    expect(s.steps.review?.attempts.map((a) => `${a.mode}:${a.conclusion}`)).toEqual(['run:failure', 'repair:success', 'run:success']);
    expect(s.steps.review?.result?.review).toMatchObject({ verdict: 'pass', independent: true });
    expect(org.remotes.show('acme/web', 'main', 'lib.js')).toMatch(/^\/\/ greets politely\n/);
    const digest = s.steps.review?.result?.receipt?.slice('sha256:'.length);
    expect(org.trailers()).toEqual(['Conveyor-Run: web-3', `Reviewed-by: reviewer openai/gpt-5 (sha256:${digest})`]);
  });

  it('a reviewer of the same model family as the coder is counted but named in no Reviewed-by trailer', async () => {
    org.script('reviewer', VERDICT("'pass'", "['fine']"));
    org.writeConfig(
      configOf(org, {
        agents: { coder: { model: 'anthropic/claude-sonnet-4-5' }, reviewer: { model: 'claude-sonnet-4-5-20250929' } },
        steps:
          '      - { id: implement, kind: code, agent: coder }\n      - { id: test, kind: gate, run: node test/unit.js }\n      - { id: review, kind: review, agent: reviewer }\n      - { id: ship, kind: merge }',
      }),
    );
    const r = await run('4');
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const s = await statusOf(org, 'web-4');
    expect(s.steps.review?.status).toBe('succeeded');
    expect(s.steps.review?.result?.review).toMatchObject({ verdict: 'pass', independent: false });
    const trailers = org.trailers();
    expect(trailers[0]).toBe('Conveyor-Run: web-4');
    expect(trailers[1]).toMatch(/^Tested-by: conveyor gate test \(sha256:[0-9a-f]{64}\)$/);
    expect(trailers.some((t) => t.startsWith('Reviewed-by'))).toBe(false);
    expect(trailers).toHaveLength(2);
  });

  it('posts each verdict on the local PR as a review, its finding on a line of the diff as a comment there; the later one replaces the earlier', async () => {
    org.script(
      'reviewer',
      `import { readFileSync, writeFileSync } from 'node:fs';
const ok = readFileSync('lib.js', 'utf8').includes('// greets politely');
const findings = ok ? [] : [{ file: 'lib.js', line: 2, message: 'add the header comment "// greets politely"' }, { file: 'lib.js', line: 50, message: 'nothing past the end' }, 'keep it short'];
writeFileSync(process.env.CONVEYOR_RESULT_FILE, JSON.stringify({ verdict: ok ? 'pass' : 'fail', findings, scores: { complexity: 0.1, risk: 0.2, impact: 0.3 } }));
`,
    );
    org.script(
      'fixer',
      `import { readFileSync, writeFileSync } from 'node:fs';\nwriteFileSync('lib.js', '// greets politely\\n' + readFileSync('lib.js', 'utf8'));\n`,
    );
    org.writeConfig(
      configOf(org, {
        agents: { coder: {}, reviewer: {}, fixer: {} },
        steps:
          '      - { id: implement, kind: code, agent: coder }\n      - { id: review, kind: review, agent: reviewer, repair: { agent: fixer, max-attempts: 1 } }',
      }),
    );
    const r = await run('5');
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const pr = await org.conveyor('pr', 'web-5');
    expect(pr.code, pr.stderr).toBe(0);
    const out = pr.stdout;
    // Issue 5 is the forge's, as on GitHub: the PR takes the next number of the repository.
    expect(out).toMatch(/^acme\/web#6 \(open\) conveyor\/web-5 -> main {2}file:\/\/\S+\/acme\/web\/pull\/6$/m);
    // The failing review of attempt 1, dismissed by the passing one of attempt 3 (after the repair, attempt 2).
    expect(out).toMatch(
      /^ {2}review 1 \(dismissed on [0-9a-f]{12}\) by conveyor: Replaced by the review of attempt 3 of step review: file:\/\/\S+\/acme\/web\/pull\/6#review-2$/m,
    );
    expect(out).toContain('    **Conveyor review `review`, attempt 1: ❌ changes requested**');
    expect(out).toContain('    3 finding(s): 1 on the lines of this diff, 2 below.');
    expect(out).toContain('    - `lib.js:50` (not a line of this diff): nothing past the end');
    expect(out).toContain('    - keep it short');
    expect(out).toContain('    lib.js:2  **`review`**: add the header comment "// greets politely"');
    expect(out).toMatch(/^ {2}review 2 \(comment on [0-9a-f]{12}\) by conveyor$/m);
    expect(out).toContain('    **Conveyor review `review`, attempt 3: ✅ passed**');
    expect(out).toContain('    No findings.');
    // The check run's summary (the step's result) says where the review went.
    const moved = await org.conveyor('pr', 'web-5', '--remotes', `${org.dir}/nowhere`);
    expect(moved.code).toBe(2);
    expect(moved.stderr).toMatch(/--remotes \S+\/nowhere: remotes folder \S+\/nowhere does not exist/);
    const json = JSON.parse((await org.conveyor('status', 'web-5', '--json')).stdout) as { steps: { review: { result?: { summary?: string } } } };
    expect(json.steps.review.result?.summary).toMatch(
      /### On the pull requests\n\n- acme\/web#6: review commenting; 0 comment\(s\) on lines; 0 finding\(s\) in its body; an earlier review dismissed\n/,
    );
  });
});
