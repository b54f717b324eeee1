import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parse } from 'yaml';
import { AGENTS_PLACEHOLDER, buildDemo, DEMO_MARKER, DEMO_SOURCE, renderConfig, splitIssue } from '../../../cli/demo-org.ts';
import { formatConfigError, loadConfig } from '../../../core/config/load.ts';
import { configSchema } from '../../../core/config/schema.ts';
import { UsageError } from '../../../core/errors.ts';
import { git, removeDir, tempDir } from '../../helpers/repos.ts';
import { builtDemo, nodeTest, run } from './helpers.ts';

function filesUnder(root: string, dir = root): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    return statSync(full).isDirectory() ? filesUnder(root, full) : [relative(root, full)];
  });
}

describe('buildDemo', () => {
  let demo: Awaited<ReturnType<typeof builtDemo>>;
  const temps: string[] = [];
  beforeAll(async () => {
    demo = await builtDemo();
    temps.push(demo.root);
  });
  afterAll(() => temps.forEach(removeDir));

  it('creates a bare repository on main for each service, holding exactly its example files and the shared preview scripts', () => {
    expect(demo.repos).toEqual(['demo/catalog', 'demo/storefront']);
    for (const repo of demo.repos) {
      const bare = join(demo.remotes, `${repo}.git`);
      expect(git(bare, 'rev-parse', '--is-bare-repository')).toBe('true');
      expect(git(bare, 'symbolic-ref', 'HEAD')).toBe('refs/heads/main');
      expect(git(bare, 'rev-list', '--count', 'main')).toBe('1');
      expect(git(bare, 'log', '-1', '--format=%an <%ae>', 'main')).toBe('Conveyor Demo <demo@conveyor.invalid>');
      const tracked = git(bare, 'ls-tree', '-r', '--name-only', 'main').split('\n').sort();
      const source = join(DEMO_SOURCE, 'repos', repo.split('/')[1]!);
      const preview = filesUnder(join(DEMO_SOURCE, 'preview')).map((f) => `scripts/${f}`);
      expect(tracked).toEqual([...filesUnder(source), ...preview].sort());
      expect(tracked).toEqual(expect.arrayContaining(['package.json', 'server.js', 'scripts/preview.mjs', 'scripts/preview-down.mjs']));
      const pkg = JSON.parse(git(bare, 'show', 'main:package.json')) as { type: string; scripts: { test: string } };
      expect(pkg).toMatchObject({ type: 'module', scripts: { test: 'node --test' } });
    }
  });

  it('the tests of each demo repository pass on the base branch, with no install', () => {
    const work = tempDir('conveyor-demo-clone-');
    temps.push(work);
    for (const repo of demo.repos) {
      const clone = join(work, repo.split('/')[1]!);
      git(work, 'clone', '--quiet', join(demo.remotes, `${repo}.git`), clone);
      const result = nodeTest(clone);
      expect(result.code, result.stdout + result.stderr).toBe(0);
      expect(result.pass).toBeGreaterThanOrEqual(2);
      expect(result.fail).toBe(0);
      expect(existsSync(join(clone, 'node_modules'))).toBe(false);
    }
  });

  it('writes a valid configuration whose agent commands reach the copied agents', () => {
    const config = configSchema.parse(parse(readFileSync(demo.configPath, 'utf8')));
    // The full loader also checks references between agents, services and steps.
    const loaded = loadConfig(readFileSync(demo.configPath, 'utf8'), demo.configPath);
    expect(loaded.ok ? [] : loaded.errors.map(formatConfigError)).toEqual([]);
    expect(Object.keys(config.services).sort()).toEqual(['catalog', 'storefront']);
    expect(config.services.storefront).toMatchObject({ repo: 'demo/storefront', 'depends-on': ['catalog'] });
    expect(config.pipelines.default).toMatchObject({ service: 'storefront', involves: ['catalog'] });
    expect(config.pipelines.default!.steps.map((s) => `${s.id}:${s.kind}`)).toEqual([
      'implement:code',
      'test:gate',
      'review:review',
      'preview:deploy',
      'e2e:gate',
      'approve:approval',
      'ship:merge',
    ]);
    expect(config.agents!.coder!.model).not.toBe(config.agents!.reviewer!.model);
    for (const name of ['coder', 'reviewer'] as const) {
      const cmd = config.agents![name]!.run!;
      expect(cmd).not.toContain(AGENTS_PLACEHOLDER);
      expect(cmd).toContain(join(DEMO_SOURCE, 'agents'));
      // Run as Conveyor runs agents, without its variables: the script is found and says what is missing.
      const r = run('bash', ['-eo', 'pipefail', '-c', cmd], demo.root, { CONVEYOR_REPOS: undefined, CONVEYOR_RESULT_FILE: undefined });
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(name === 'coder' ? /coder: CONVEYOR_REPOS is not set/ : /reviewer: CONVEYOR_RESULT_FILE is not set/);
    }
  });

  it('writes the issue body without its title line', () => {
    expect(demo.issueTitle).toBe("Show each product's price in the storefront");
    const body = readFileSync(demo.issueBodyPath, 'utf8');
    expect(body).toMatch(/^Shoppers cannot see/);
    expect(body).not.toContain(demo.issueTitle);
  });

  it('builds again over a previous demo, and refuses any other non-empty folder', async () => {
    writeFileSync(join(demo.dir, 'leftover.txt'), 'from an earlier run');
    const again = await buildDemo(demo.dir);
    expect(existsSync(join(demo.dir, 'leftover.txt'))).toBe(false);
    expect(existsSync(join(again.dir, DEMO_MARKER))).toBe(true);
    expect(git(join(again.remotes, 'demo/catalog.git'), 'rev-parse', 'main')).toBe(git(join(demo.remotes, 'demo/catalog.git'), 'rev-parse', 'main'));

    const other = join(demo.root, 'someone-elses');
    mkdirSync(other);
    writeFileSync(join(other, 'notes.txt'), 'keep me');
    const refused = await buildDemo(other).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(UsageError);
    expect((refused as Error).message).toContain(other);
    expect((refused as Error).message).toContain(DEMO_MARKER);
    expect(readFileSync(join(other, 'notes.txt'), 'utf8')).toBe('keep me');

    const file = join(demo.root, 'a-file');
    writeFileSync(file, '');
    await expect(buildDemo(file)).rejects.toThrow(/is not a folder/);
  });

  it('quotes an agents folder whose name has spaces, quotes or YAML syntax in it', async () => {
    const dir = join(demo.root, "it's a: demo #1");
    const odd = await buildDemo(dir);
    const config = configSchema.parse(parse(readFileSync(odd.configPath, 'utf8')));
    const r = run('bash', ['-eo', 'pipefail', '-c', config.agents!.coder!.run!], demo.root, { CONVEYOR_REPOS: '[]' });
    expect(r.stderr).toContain('coder: CONVEYOR_REPOS has no "catalog" repository');
  });

  it('renderConfig rejects a template that does not match the schema, naming the key', () => {
    expect(() => renderConfig('version: 1\nservices: {}\npipelines: {}\nagents: {x: {run: ""}}\n', '/a')).toThrow(/agents\.x\.run/);
    expect(() => renderConfig('version: [\n', '/a')).toThrow(/not valid YAML/);
  });

  it('splitIssue needs a title line', () => {
    expect(splitIssue('# Title\n\nBody\n')).toEqual({ title: 'Title', body: 'Body\n' });
    expect(() => splitIssue('no title\n')).toThrow(/must start with a "# title" line/);
  });
});
