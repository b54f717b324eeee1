// Environments flow forward, through the real `conveyor` command on the demo organisation: the
// demo's end-to-end gate runs after the deploy against the previews it stood up (the storefront
// must show the catalog's prices). The pipeline here has no unit-test gate before the deploy, so
// the scripted coder's first change ($12.5, no cents) reaches the previews: the e2e gate fails on
// them, the coder repairs the storefront, and the deploy runs again (the storefront, whose
// repository changed; the catalog's preview is kept) before the e2e gate runs again and passes.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDemo, type Demo } from '../../../cli/demo-org.ts';
import { cli } from '../../helpers/cli.ts';
import { removeDir, tempDir } from '../../helpers/repos.ts';

let root: string;
let demo: Demo;
let tmp: string;
let configPath: string;
const envDir = () => join(tmp, 'conveyor-demo-envs');

beforeAll(async () => {
  root = tempDir('conveyor-e2e-environments-');
  demo = await buildDemo(join(root, 'demo'));
  tmp = join(root, 'tmp');
  mkdirSync(tmp);
  const text = readFileSync(demo.configPath, 'utf8');
  const withoutUnitTests = text
    .split('\n')
    .filter((l) => !l.includes('{ id: test, kind: gate'))
    .join('\n');
  expect(withoutUnitTests).toContain('{ id: e2e, kind: gate');
  configPath = join(root, 'conveyor.yml');
  writeFileSync(configPath, withoutUnitTests);
});

afterAll(() => {
  if (existsSync(envDir())) {
    for (const file of readdirSync(envDir()).filter((f) => f.endsWith('.pid'))) {
      try {
        process.kill(-Number(readFileSync(join(envDir(), file), 'utf8')), 'SIGKILL');
      } catch {
        // gone
      }
    }
  }
  removeDir(root);
});

interface Status {
  status: string;
  steps: Record<string, { attempts: { mode: string; conclusion?: string; summary?: string }[] }>;
  environments: { service: string; state: string; url?: string; commit?: string }[];
}

describe('a gate after the deploy', () => {
  it('fetches the previews, fails on a preview of the flawed change, and runs again only once the repair is deployed', async () => {
    const state = join(root, 'state.db');
    const env = { TMPDIR: tmp };
    const r = await cli(
      [
        'run',
        '--config',
        configPath,
        '--remotes',
        demo.remotes,
        '--title',
        demo.issueTitle,
        '--body-file',
        demo.issueBodyPath,
        '--state',
        state,
        '--approve',
        '--keep-envs',
      ],
      { cwd: root, env },
    );
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const s = JSON.parse((await cli(['status', 'storefront-1', '--json', '--state', state], { cwd: root, env })).stdout) as Status;
    const e2e = s.steps.e2e!.attempts;
    expect(e2e.map((a) => `${a.mode}:${a.conclusion}`)).toEqual(['run:failure', 'repair:success', 'run:success']);
    // It fetched the storefront's preview: what the page showed is in its failing lines.
    expect(e2e[0]!.summary).toContain('the storefront shows <li>Espresso cup — $12.5</li>, not <li>Espresso cup — $12.50</li>');
    // The deploy ran again between the repair and the gate's second run.
    expect(s.steps.preview!.attempts.map((a) => `${a.mode}:${a.conclusion}`)).toEqual(['run:success', 'run:success']);
    expect(s.steps.preview!.attempts[1]!.summary).toMatch(/\| catalog \|[^\n]*kept from an earlier dispatch/);

    // The previews left up show the repaired page, deployed from the storefront's repaired head.
    const url = (service: string) => s.environments.find((e) => e.service === service && e.state === 'ready')?.url;
    const page = await (await fetch(url('storefront')!)).text();
    expect(page).toContain('<li>Espresso cup — $12.50</li>');
    const down = await cli(['teardown', 'storefront-1', '--state', state, '--remotes', demo.remotes], { cwd: root, env });
    expect(down.code, down.stdout + down.stderr).toBe(0);
  });
});
