// The demo organisation through the real `conveyor` command: the catalog and a storefront wired
// to it come up on loopback, the storefront's page shows the catalog's data, and both stop when
// the run ends (the demo's pipeline without its review step, through `conveyor run` and `approve`),
// or stay up for `conveyor teardown` (`conveyor demo --keep-envs`, as the README's first command).
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDemo, type Demo } from '../../../cli/demo-org.ts';
import { cli, CONVEYOR_BIN } from '../../helpers/cli.ts';
import { git, removeDir, tempDir } from '../../helpers/repos.ts';

let root: string;
let demo: Demo;
let tmp: string;
let configPath: string;
const envDir = () => join(tmp, 'conveyor-demo-envs');

beforeAll(async () => {
  root = tempDir('conveyor-e2e-demo-deploy-');
  demo = await buildDemo(join(root, 'demo'));
  // The preview scripts keep their pid files under $TMPDIR: a folder of this test's own.
  tmp = join(root, 'tmp');
  mkdirSync(tmp);
  const text = readFileSync(demo.configPath, 'utf8');
  const withoutReview = text
    .split('\n')
    .filter((l) => !l.includes('kind: review'))
    .join('\n');
  expect(withoutReview).toContain('kind: deploy');
  configPath = join(root, 'conveyor.yml');
  writeFileSync(configPath, withoutReview);
});

afterAll(() => {
  // Whatever a failed assertion left running is stopped before its folder goes.
  if (existsSync(envDir())) {
    for (const file of readdirSync(envDir()).filter((f) => f.endsWith('.pid'))) {
      const pid = Number(readFileSync(join(envDir(), file), 'utf8'));
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
  }
  removeDir(root);
});

/** Pid files the previews left in the host's temp folder (a sandboxed preview keeps its own in its own /tmp). */
const leftPidFiles = () => (existsSync(envDir()) ? readdirSync(envDir()).filter((f) => f.endsWith('.pid')) : []);

async function refused(url: string): Promise<boolean> {
  return fetch(url).then(
    async (res) => (await res.arrayBuffer(), false),
    () => true,
  );
}

describe("the demo's deploy step", () => {
  it('stands up the catalog and a storefront that shows its data, and stops both when the run ends', async () => {
    const state = join(root, 'state.db');
    const env = { TMPDIR: tmp };
    const r = await cli(
      ['run', '--config', configPath, '--remotes', demo.remotes, '--title', demo.issueTitle, '--body-file', demo.issueBodyPath, '--state', state],
      { cwd: root, env },
    );
    expect(r.code, r.stdout + r.stderr).toBe(3);
    const status = JSON.parse((await cli(['status', 'storefront-1', '--json', '--state', state], { cwd: root, env })).stdout) as {
      environments: { service: string; state: string; url?: string }[];
    };
    const url = (s: string) => status.environments.find((e) => e.service === s && e.state === 'ready')?.url;
    const catalog = url('catalog');
    const storefront = url('storefront');
    expect(catalog).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(storefront).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    const products = (await (await fetch(`${catalog}/products`)).json()) as { name: string }[];
    expect(products.length).toBeGreaterThan(0);
    const page = await (await fetch(storefront!)).text();
    for (const p of products) expect(page).toContain(p.name);
    // The run's change (prices from the catalog) is what was deployed: the work branches.
    expect(page).toMatch(/\$\d+\.\d\d/);

    const approved = await cli(['approve', 'storefront-1', '--state', state], { cwd: root, env });
    expect(approved.code, approved.stdout + approved.stderr).toBe(0);
    expect(await refused(storefront!)).toBe(true);
    expect(await refused(`${catalog}/products`)).toBe(true);
    expect(leftPidFiles()).toEqual([]);
  });

  it('`conveyor demo --keep-envs` runs the whole demo, repair loop included, and leaves the previews up for the `teardown` it prints', async () => {
    const dir = join(root, 'demo-cli');
    const state = join(dir, 'state.db');
    const env = { TMPDIR: tmp };
    const r = await cli(['demo', '--dir', dir, '--keep-envs'], { cwd: root, env });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('Run storefront-1: succeeded');
    const teardown = `node ${CONVEYOR_BIN} teardown storefront-1 --state ${state}`;
    expect(r.stdout).toContain(teardown);
    // Its PRs are named with the command that shows them, never a file://…/pull/N link that opens nothing; pasted, it shows them.
    expect(r.stdout).not.toContain('/pull/');
    expect(r.stdout).toContain(`node ${CONVEYOR_BIN} pr storefront-1 --state ${state}`);
    const prs = await cli(['pr', 'storefront-1', '--state', state, '--no-diff'], { cwd: root, env });
    expect(prs.code, prs.stdout + prs.stderr).toBe(0);
    expect(prs.stdout).toContain('demo/catalog#1');

    const s = JSON.parse((await cli(['status', 'storefront-1', '--json', '--state', state], { cwd: root, env })).stdout) as {
      steps: Record<string, { attempts: { mode: string; conclusion?: string }[] }>;
      environments: { service: string; state: string; url?: string }[];
    };
    // The scripted coder's first change fails the tests of both repositories; its repair passes.
    expect(s.steps.test!.attempts.map((a) => `${a.mode}:${a.conclusion}`)).toEqual(['run:failure', 'repair:success', 'run:success']);
    expect(s.steps.review!.attempts.map((a) => a.conclusion)).toEqual(['success']);
    // Both PRs merged, the provider (catalog) no later than its consumer.
    const merged = (repo: string) => git(join(dir, 'remotes', `${repo}.git`), 'log', '-1', '--format=%ct%n%B', 'main').split('\n');
    const [catalogTime, ...catalogMessage] = merged('demo/catalog');
    const [storefrontTime, ...storefrontMessage] = merged('demo/storefront');
    for (const message of [catalogMessage, storefrontMessage]) expect(message).toContain('Conveyor-Run: storefront-1');
    expect(Number(catalogTime)).toBeLessThanOrEqual(Number(storefrontTime));

    // Kept up: the storefront shows the catalog's products, with the prices the run added.
    const url = (service: string) => s.environments.find((e) => e.service === service && e.state === 'ready')?.url;
    const products = (await (await fetch(`${url('catalog')}/products`)).json()) as { name: string }[];
    const page = await (await fetch(url('storefront')!)).text();
    for (const p of products) expect(page).toContain(p.name);
    expect(page).toMatch(/\$\d+\.\d\d/);

    const down = await cli(teardown.split(' ').slice(2), { cwd: root, env });
    expect(down.code, down.stdout + down.stderr).toBe(0);
    expect(down.stdout).toMatch(/removed +catalog/);
    expect(down.stdout).toMatch(/removed +storefront/);
    expect(await refused(url('storefront')!)).toBe(true);
    expect(await refused(`${url('catalog')}/products`)).toBe(true);
    expect(leftPidFiles()).toEqual([]);
  });
});
