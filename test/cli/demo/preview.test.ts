import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { removeDir } from '../../helpers/repos.ts';
import { builtDemo, cloneWorkspace, run, type Workspace } from './helpers.ts';

const CODER = join(import.meta.dirname, '../../../examples/demo/agents/coder.mjs');

describe("the demo services' preview scripts", () => {
  let demo: Awaited<ReturnType<typeof builtDemo>>;
  let ws: Workspace;
  let tmp: string;
  let outputs = 0;
  const stateDir = () => join(tmp, 'conveyor-demo-envs');

  beforeAll(async () => {
    demo = await builtDemo();
    ws = cloneWorkspace(demo, demo.root, 'ws');
    const coded = run(process.execPath, [CODER], ws.dir, { CONVEYOR_REPOS: ws.repos(), CONVEYOR_WORKSPACE: ws.dir, CONVEYOR_DEMO_CODER: 'flawless' });
    expect(coded.code, coded.stderr).toBe(0);
    // The scripts keep their pid files under $TMPDIR: a folder of this test's own.
    tmp = join(demo.root, 'tmp');
    mkdirSync(tmp);
  });

  afterAll(() => {
    // Whatever a failed assertion left running is stopped before its folder goes.
    if (existsSync(stateDir())) {
      for (const file of readdirSync(stateDir()).filter((f) => f.endsWith('.pid'))) {
        const envId = file.slice(0, -'.pid'.length);
        run(process.execPath, ['scripts/preview-down.mjs'], ws.catalog, { TMPDIR: tmp, CONVEYOR_ENV_ID: envId });
      }
    }
    removeDir(demo.root);
  });

  function deploy(dir: string, envId: string, env: Record<string, string> = {}) {
    const output = join(tmp, `output-${++outputs}`);
    const r = run(process.execPath, ['scripts/preview.mjs'], dir, { TMPDIR: tmp, CONVEYOR_ENV_ID: envId, CONVEYOR_OUTPUT: output, ...env });
    const url = existsSync(output) ? /^url=(.+)$/m.exec(readFileSync(output, 'utf8'))?.[1] : undefined;
    const pidFile = join(stateDir(), `${envId}.pid`);
    const pid = existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8')) : undefined;
    return { ...r, url, pid };
  }
  function teardown(dir: string, envId: string) {
    return run(process.execPath, ['scripts/preview-down.mjs'], dir, { TMPDIR: tmp, CONVEYOR_ENV_ID: envId });
  }
  async function refused(url: string): Promise<boolean> {
    return fetch(url).then(
      async (res) => (await res.arrayBuffer(), false),
      () => true,
    );
  }

  it('stands up the catalog and a storefront wired to it on loopback, and tears both down', async () => {
    const catalog = deploy(ws.catalog, 'run-1-catalog');
    expect(catalog.code, catalog.stderr).toBe(0);
    expect(catalog.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(catalog.pid).toBeGreaterThan(1);
    const products = (await (await fetch(`${catalog.url}/products`)).json()) as { name: string; price: number }[];
    expect(products.map((p) => p.price)).toEqual([12.5, 48, 129.99]);

    const storefront = deploy(ws.storefront, 'run-1-storefront', { CONVEYOR_PEER_CATALOG_URL: catalog.url! });
    expect(storefront.code, storefront.stderr).toBe(0);
    expect(storefront.url).not.toBe(catalog.url);
    const page = await fetch(storefront.url!);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('<li>Espresso cup — $12.50</li>');
    expect(html).toContain('<li>Burr grinder — $129.99</li>');

    // The storefront really asks the catalog: with the catalog gone, its page says so.
    const down = teardown(ws.catalog, 'run-1-catalog');
    expect(down.code, down.stderr).toBe(0);
    expect(down.stdout).toContain('run-1-catalog: stopped');
    expect(await refused(`${catalog.url}/products`)).toBe(true);
    const orphan = await fetch(storefront.url!);
    expect(orphan.status).toBe(502);
    expect(await orphan.text()).toContain('The catalog is unavailable');

    expect(teardown(ws.storefront, 'run-1-storefront').code).toBe(0);
    expect(await refused(storefront.url!)).toBe(true);
    expect(readdirSync(stateDir()).filter((f) => f.startsWith('run-1-'))).toEqual([]);

    // Teardown is idempotent.
    const again = teardown(ws.storefront, 'run-1-storefront');
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('run-1-storefront: already gone');
  });

  it('the e2e gate passes against previews of the change and fails against a stale storefront preview, saying what it shows', async () => {
    // A storefront deployed from the base (before the change): it shows no price.
    const stale = cloneWorkspace(demo, demo.root, 'stale');
    const catalog = deploy(ws.catalog, 'run-5-catalog');
    const fresh = deploy(ws.storefront, 'run-5-storefront', { CONVEYOR_PEER_CATALOG_URL: catalog.url! });
    const old = deploy(stale.storefront, 'run-5-old-storefront', { CONVEYOR_PEER_CATALOG_URL: catalog.url! });
    for (const r of [catalog, fresh, old]) expect(r.code, r.stderr).toBe(0);
    const e2e = (storefront: string) =>
      run(process.execPath, ['scripts/e2e.mjs'], ws.storefront, { CONVEYOR_ENV_CATALOG_URL: catalog.url!, CONVEYOR_ENV_STOREFRONT_URL: storefront });

    const passed = e2e(fresh.url!);
    expect(passed.code, passed.stderr).toBe(0);
    expect(passed.stdout).toContain("ok - the storefront's preview shows the catalog's 3 prices");
    const failed = e2e(old.url!);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain('not ok - the storefront shows <li>Espresso cup</li>, not <li>Espresso cup — $12.50</li>');
    expect(failed.stderr).toContain("3 of 3 products do not show the catalog's price");
    // Run before any deploy (no environment given), it says what it needs rather than passing.
    const none = run(process.execPath, ['scripts/e2e.mjs'], ws.storefront, {});
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('needs the previews of the catalog and the storefront');
    for (const [dir, id] of [
      [ws.catalog, 'run-5-catalog'],
      [ws.storefront, 'run-5-storefront'],
      [stale.storefront, 'run-5-old-storefront'],
    ] as const) {
      expect(teardown(dir, id).code).toBe(0);
    }
  });

  it('deploying the same environment again replaces its server', async () => {
    const first = deploy(ws.catalog, 'run-2-catalog');
    const second = deploy(ws.catalog, 'run-2-catalog');
    expect(first.code).toBe(0);
    expect(second.code).toBe(0);
    expect(second.pid).not.toBe(first.pid);
    expect(await refused(`${first.url}/products`)).toBe(true);
    expect((await fetch(`${second.url}/products`)).status).toBe(200);
    expect(teardown(ws.catalog, 'run-2-catalog').code).toBe(0);
    expect(await refused(`${second.url}/products`)).toBe(true);
  });

  it("a storefront without its provider's URL still starts and says the catalog is unavailable", async () => {
    const storefront = deploy(ws.storefront, 'run-3-storefront');
    expect(storefront.code, storefront.stderr).toBe(0);
    const page = await fetch(storefront.url!);
    expect(page.status).toBe(502);
    expect(await page.text()).toContain('CATALOG_URL is not set');
    expect(teardown(ws.storefront, 'run-3-storefront').code).toBe(0);
    expect(await refused(storefront.url!)).toBe(true);
  });

  it('refuses an environment id that is not a DNS-safe name, and a missing output file', () => {
    for (const script of ['scripts/preview.mjs', 'scripts/preview-down.mjs']) {
      const r = run(process.execPath, [script], ws.catalog, { TMPDIR: tmp, CONVEYOR_ENV_ID: '../escape', CONVEYOR_OUTPUT: join(tmp, 'o') });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('CONVEYOR_ENV_ID must be a DNS-safe name (letters, digits and "-"), got "../escape"');
    }
    const noOutput = run(process.execPath, ['scripts/preview.mjs'], ws.catalog, { TMPDIR: tmp, CONVEYOR_ENV_ID: 'run-4', CONVEYOR_OUTPUT: undefined });
    expect(noOutput.code).toBe(1);
    expect(noOutput.stderr).toContain('CONVEYOR_OUTPUT must name the file');
    expect(existsSync(join(stateDir(), 'run-4.pid'))).toBe(false);
  });

  it('a server that cannot start fails the deploy with the tail of its output, leaving nothing behind', () => {
    const broken = cloneWorkspace(demo, demo.root, 'ws-broken');
    writeFileSync(join(broken.catalog, 'server.js'), "throw new Error('no database configured');\n");
    const r = deploy(broken.catalog, 'run-5-catalog');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/preview catalog: server\.js exited \(1\):[\s\S]*no database configured/);
    expect(r.url).toBeUndefined();
    expect(readdirSync(stateDir()).filter((f) => f.startsWith('run-5-'))).toEqual([]);
  });
});
