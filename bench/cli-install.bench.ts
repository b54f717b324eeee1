// The install of an agent's CLI in a step after the first (issue 26, item 5): a small npm package
// with a bin (semver, ~60 KB) installed through the path a preset's CLI takes, as the action runs
// it (runSetup in the agent's setup sandbox, `command -v <cli> || npm install --global
// <package>@<version>`, npm's prefix a tools folder of that package and version), measured as
//   first    a runner with nothing cached: the package comes from the registry;
//   uncached a later step as it was before the cache: another fresh runner, installing again;
//   cached   a later step with the tools folder restored as the workflow's actions/cache does it
//            (a tar of the folder unpacked on the new runner, counted in its time), where the
//            setup finds the CLI on PATH and installs nothing.
// Rounds are interleaved, after a warm-up; medians compared. The target is cached/first <= 0.2.
// It needs the npm registry (the sandbox's setup has the runner's network).
// Usage: npx tsx bench/cli-install.bench.ts
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { createContext } from '../action/src/context.ts';
import { agentSetupIsolation, toolsDir } from '../action/src/sandbox.ts';
import { runSetup } from '../action/src/setup.ts';
import type { Workspace } from '../action/src/workspace.ts';
import { makePayload } from '../test/helpers/payload.ts';

const PACKAGE = 'semver';
const VERSION = '7.6.3';
const CLI = 'semver';
const ROUNDS = 3;
const TARGET = 0.2;

// The runner's PATH without node_modules/.bin folders (npx adds its own, which has a semver).
const RUNNER_PATH = (process.env.PATH ?? '/usr/bin:/bin')
  .split(delimiter)
  .filter((d) => !d.includes('node_modules'))
  .join(delimiter);
// A machine whose HTTPS goes through an intercepting proxy trusts its CA in ~/.npmrc, which the
// sandbox hides (a runner's secrets live there): the CA file is passed as a variable instead.
const CAFILE = process.env.npm_config_cafile ?? process.env.NODE_EXTRA_CA_CERTS;
const TRUST: Record<string, string> = CAFILE ? { npm_config_cafile: CAFILE } : {};
const root = mkdtempSync(join(tmpdir(), 'conveyor-cli-install-'));
const payload = makePayload({ repos: [{ repo: 'acme/web' }] });

/** One step's setup of the CLI on a runner whose cache folder is `cache`; its time in ms. */
async function setupOn(cache: string): Promise<number> {
  const env = { PATH: RUNNER_PATH, HOME: process.env.HOME ?? tmpdir(), CONVEYOR_CACHE_DIR: cache };
  const ctx = createContext({ env, log: () => undefined });
  const install = join(toolsDir(env), `bench-${PACKAGE}-${VERSION}`);
  mkdirSync(join(install, 'bin'), { recursive: true });
  const ws = join(cache, 'ws');
  mkdirSync(ws, { recursive: true });
  const workspace = { root: ws, gitRoot: join(cache, 'git'), repos: [], notes: [] } as unknown as Workspace;
  const started = performance.now();
  await runSetup(ctx, payload, {
    who: 'agent "bench"',
    command: `command -v ${CLI} >/dev/null 2>&1 || npm install --global --no-audit --no-fund ${PACKAGE}@${VERSION}`,
    timeoutMinutes: 5,
    cwd: ws,
    workspace: ws,
    isolation: agentSetupIsolation(workspace, env),
    extra: { PATH: [join(install, 'bin'), env.PATH].join(delimiter), npm_config_prefix: install, ...TRUST },
  });
  const ms = performance.now() - started;
  execFileSync(join(install, 'bin', CLI), ['--help'], { stdio: 'ignore' });
  return ms;
}

/** actions/cache's save on one runner and restore on the next: a tar of the tools folder, unpacked; its time in ms. */
function restore(from: string, to: string): number {
  const started = performance.now();
  mkdirSync(join(to, 'tools'), { recursive: true });
  const archive = join(root, `tools-${Math.random().toString(36).slice(2)}.tar`);
  execFileSync('tar', ['-cf', archive, '-C', join(from, 'tools'), '.']);
  execFileSync('tar', ['-xf', archive, '-C', join(to, 'tools')]);
  rmSync(archive);
  return performance.now() - started;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fresh = (name: string) => mkdtempSync(join(root, `${name}-`));

try {
  // Warm-up: npm itself and the registry's edge caches.
  await setupOn(fresh('warm'));
  const times = { first: [] as number[], uncached: [] as number[], cached: [] as number[] };
  for (let i = 0; i < ROUNDS; i++) {
    const first = fresh('first');
    times.first.push(await setupOn(first));
    times.uncached.push(await setupOn(fresh('uncached')));
    const next = fresh('cached');
    const restoring = restore(first, next);
    times.cached.push(restoring + (await setupOn(next)));
  }
  const m = { first: median(times.first), uncached: median(times.uncached), cached: median(times.cached) };
  const ratio = m.cached / m.first;
  console.log(`install of ${PACKAGE}@${VERSION} through an agent's setup, medians of ${ROUNDS} rounds:`);
  console.log(`  first step (nothing cached)        ${(m.first / 1000).toFixed(2)} s`);
  console.log(`  later step, no cache (as before)   ${(m.uncached / 1000).toFixed(2)} s   (${(m.uncached / m.first).toFixed(2)} of the first)`);
  console.log(`  later step, tools folder restored  ${(m.cached / 1000).toFixed(2)} s   (${ratio.toFixed(2)} of the first; target <= ${TARGET})`);
  if (ratio > TARGET) process.exitCode = 1;
} finally {
  rmSync(root, { recursive: true, force: true });
}
