import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { reviewVerdictSchema } from '../../../core/contract/wire.ts';
import { git, removeDir } from '../../helpers/repos.ts';
import { builtDemo, cloneWorkspace, commitAll, nodeTest, run, status, type Workspace } from './helpers.ts';

const CODER = join(import.meta.dirname, '../../../examples/demo/agents/coder.mjs');
const REVIEWER = join(import.meta.dirname, '../../../examples/demo/agents/reviewer.mjs');

describe('the demo agents', () => {
  let demo: Awaited<ReturnType<typeof builtDemo>>;
  beforeAll(async () => {
    demo = await builtDemo();
  });
  afterAll(() => removeDir(demo.root));

  function coder(ws: Workspace, env: Record<string, string>) {
    return run(process.execPath, [CODER], ws.dir, { CONVEYOR_WORKSPACE: ws.dir, CONVEYOR_REPOS: ws.repos(), CONVEYOR_STEP: 'implement', ...env });
  }
  function reviewer(ws: Workspace, name: string, env: Record<string, string> = {}) {
    const resultFile = join(demo.root, `${name}.json`);
    const r = run(process.execPath, [REVIEWER], ws.dir, { CONVEYOR_WORKSPACE: ws.dir, CONVEYOR_REPOS: ws.repos(), CONVEYOR_RESULT_FILE: resultFile, ...env });
    return { ...r, resultFile };
  }

  it('makes the cross-repository change with a bug first, then fixes it from the failing lines', () => {
    const ws = cloneWorkspace(demo, demo.root, 'ws-repair');
    const first = coder(ws, { CONVEYOR_ATTEMPT: '1' });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('demo/catalog: products.js');
    expect(first.stdout).toContain('demo/storefront: test/price.test.js');
    // It leaves its work uncommitted in both repositories.
    expect(status(ws.catalog)).toMatch(/^M products\.js[\s\S]*\?\? test\//);
    expect(status(ws.storefront)).toMatch(/^M storefront\.js[\s\S]*\?\? test\//);
    expect(git(ws.storefront, 'rev-list', '--count', 'HEAD')).toBe('1');
    expect(readFileSync(join(ws.catalog, 'products.js'), 'utf8')).toContain("{ id: 'cup', name: 'Espresso cup', price: 12.5 }");

    const provider = nodeTest(ws.catalog);
    expect(provider.code, provider.stdout).toBe(0);
    expect(provider.pass).toBe(4);
    const consumer = nodeTest(ws.storefront);
    expect(consumer.code).not.toBe(0);
    expect(consumer.fail).toBe(1);
    expect(consumer.stdout).toContain('Espresso cup — $12.5<');
    for (const dir of [ws.catalog, ws.storefront]) commitAll(dir, 'conveyor: implement');

    const prompt = join(demo.root, 'repair-prompt.md');
    const failing = consumer.stdout.split('\n').filter((l) => /not ok|AssertionError/.test(l));
    writeFileSync(prompt, `# Repair\n\n## demo/storefront: npm test failed\n\n${failing.join('\n')}\n`);
    const repair = coder(ws, { CONVEYOR_ATTEMPT: '2', CONVEYOR_PROMPT_FILE: prompt, CONVEYOR_REPOS: ws.repos(true), CONVEYOR_WORKSPACE: '/nonexistent' });
    expect(repair.code, repair.stderr).toBe(0);
    expect(repair.stdout).toContain('(repair)');
    expect(repair.stdout).toMatch(/the prompt reports \d+ failing line/);
    expect(status(ws.catalog)).toBe('');
    expect(status(ws.storefront)).toBe('M storefront.js');
    const fixed = nodeTest(ws.storefront);
    expect(fixed.code, fixed.stdout).toBe(0);
    expect(fixed.fail).toBe(0);
    expect(fixed.pass).toBe(4);
    expect(nodeTest(ws.catalog).code).toBe(0);

    // Once fixed, running it again changes nothing.
    commitAll(ws.storefront, 'conveyor: repair');
    expect(coder(ws, { CONVEYOR_ATTEMPT: '3' }).code).toBe(0);
    expect(status(ws.storefront) + status(ws.catalog)).toBe('');

    // The reviewer sees the committed change in both repositories and passes it.
    const review = reviewer(ws, 'pass');
    expect(review.code, review.stderr).toBe(0);
    const verdict = reviewVerdictSchema.parse(JSON.parse(readFileSync(review.resultFile, 'utf8')));
    expect(verdict.verdict).toBe('pass');
    expect(verdict.findings).toEqual([]);
    expect(verdict.scores.impact).toBeGreaterThan(0.4);
    expect(review.stdout).toMatch(/demo\/catalog against origin\/main: 2 file\(s\), \+\d+ -\d+/);
    expect(status(ws.storefront) + status(ws.catalog)).toBe('');
  });

  it('makes the right change at once when told to be flawless, and never fixes it when stubborn', () => {
    const flawless = cloneWorkspace(demo, demo.root, 'ws-flawless');
    expect(coder(flawless, { CONVEYOR_DEMO_CODER: 'flawless' }).code).toBe(0);
    expect(nodeTest(flawless.storefront).code).toBe(0);
    expect(nodeTest(flawless.catalog).code).toBe(0);

    const stubborn = cloneWorkspace(demo, demo.root, 'ws-stubborn');
    expect(coder(stubborn, { CONVEYOR_DEMO_CODER: 'stubborn' }).code).toBe(0);
    const before = readFileSync(join(stubborn.storefront, 'storefront.js'), 'utf8');
    expect(coder(stubborn, { CONVEYOR_DEMO_CODER: 'stubborn', CONVEYOR_ATTEMPT: '2' }).code).toBe(0);
    expect(readFileSync(join(stubborn.storefront, 'storefront.js'), 'utf8')).toBe(before);

    const bad = coder(stubborn, { CONVEYOR_DEMO_CODER: 'perfect' });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('CONVEYOR_DEMO_CODER must be normal, flawless or stubborn, not "perfect"');
  });

  it('says what is wrong with its inputs', () => {
    const ws = cloneWorkspace(demo, demo.root, 'ws-bad');
    const notJson = coder(ws, { CONVEYOR_REPOS: '{oops' });
    expect(notJson.code).toBe(1);
    expect(notJson.stderr).toContain('CONVEYOR_REPOS is not JSON');
    const onlyOne = coder(ws, { CONVEYOR_REPOS: JSON.stringify([{ repo: 'demo/catalog', dir: 'catalog', role: 'sibling', service: 'catalog' }]) });
    expect(onlyOne.code).toBe(1);
    expect(onlyOne.stderr).toContain('CONVEYOR_REPOS has no "storefront" repository (it lists: demo/catalog)');
    const missing = coder(ws, { CONVEYOR_WORKSPACE: demo.root });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/demo\/catalog: no checkout with a package\.json at .*\/catalog$/m);
    expect(status(ws.catalog) + status(ws.storefront)).toBe('');
  });

  it('the reviewer fails an empty change and code changed without a test', () => {
    const ws = cloneWorkspace(demo, demo.root, 'ws-review');
    const empty = reviewer(ws, 'empty');
    expect(empty.code).toBe(0);
    const emptyVerdict = reviewVerdictSchema.parse(JSON.parse(readFileSync(empty.resultFile, 'utf8')));
    expect(emptyVerdict.verdict).toBe('fail');
    expect(JSON.stringify(emptyVerdict.findings)).toContain('the diff is empty');

    writeFileSync(join(ws.storefront, 'storefront.js'), `${readFileSync(join(ws.storefront, 'storefront.js'), 'utf8')}\nexport const x = 1;\n`);
    const untested = reviewer(ws, 'untested');
    const verdict = reviewVerdictSchema.parse(JSON.parse(readFileSync(untested.resultFile, 'utf8')));
    expect(verdict.verdict).toBe('fail');
    expect(JSON.stringify(verdict.findings)).toContain('code changed (storefront.js) without a test');

    const noResult = run(process.execPath, [REVIEWER], ws.dir, { CONVEYOR_REPOS: ws.repos(), CONVEYOR_RESULT_FILE: undefined });
    expect(noResult.code).toBe(1);
    expect(noResult.stderr).toContain('CONVEYOR_RESULT_FILE is not set');
  });

  it('the reviewer reads the diffs in its prompt when a checkout has no base branch', () => {
    const ws = cloneWorkspace(demo, demo.root, 'ws-nobase');
    expect(coder(ws, { CONVEYOR_DEMO_CODER: 'flawless' }).code).toBe(0);
    let diffs = '';
    for (const dir of [ws.catalog, ws.storefront]) {
      commitAll(dir, 'conveyor: implement');
      diffs += `## ${dir}\n\n\`\`\`diff\n${git(dir, 'diff', 'origin/main...HEAD')}\n\`\`\`\n\n`;
      git(dir, 'branch', '--quiet', '-D', 'main');
      git(dir, 'remote', 'set-head', 'origin', '--delete');
      git(dir, 'update-ref', '-d', 'refs/remotes/origin/main');
    }
    const blind = reviewer(ws, 'blind');
    const blindVerdict = reviewVerdictSchema.parse(JSON.parse(readFileSync(blind.resultFile, 'utf8')));
    expect(blindVerdict.verdict).toBe('fail');
    expect(JSON.stringify(blindVerdict.findings)).toContain('no base branch to compare with');

    const prompt = join(demo.root, 'review-prompt.md');
    writeFileSync(prompt, `# Review\n\n- look closely\n\n${diffs}`);
    const read = reviewer(ws, 'read', { CONVEYOR_PROMPT_FILE: prompt });
    expect(read.stdout).toMatch(/the prompt's diffs \(no base branch in demo\/storefront, demo\/catalog\): 3 file\(s\), \+\d+ -\d+/);
    expect(reviewVerdictSchema.parse(JSON.parse(readFileSync(read.resultFile, 'utf8'))).verdict).toBe('pass');
  });
});
