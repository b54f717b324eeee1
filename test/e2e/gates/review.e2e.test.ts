// The review step end to end: a verdict or nothing, a failing review repaired, and independence.
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
});
