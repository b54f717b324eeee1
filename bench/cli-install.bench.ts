// The install of an agent's CLI in a step after the first (issue 26, item 5): a small npm package
// with a bin (semver, ~60 KB) installed through the path a preset's CLI takes, as the action runs
// it (runSetup in the agent's setup sandbox, in its install folder, `test -x
// "$CONVEYOR_INSTALL_DIR/bin/<cli>" || npm install --global <package>@<version>`, npm's prefix
// that install folder, a tools folder of that package and version), measured as
//   first    a runner with nothing cached: the package comes from the registry;
//   uncached a later step as it was before the cache: another fresh runner, installing again;
//   cached   a later step with its install folder restored as the workflow's actions/cache does it
//            (a tar of the folder unpacked on the new runner, counted in its time), where the
//            setup finds the CLI in its install folder and installs nothing.
// Rounds are interleaved, after a warm-up; medians compared. The target is cached/first <= 0.2.
// It needs the npm registry (the sandbox's setup has the runner's network).
// Usage: npx tsx bench/cli-install.bench.ts
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { createContext } from '../action/src/context.ts';
import { agentSetupIsolation, installVariables, toolsDir } from '../action/src/sandbox.ts';
import { runSetup } from '../action/src/setup.ts';
import { makePayload } from '../test/helpers/payload.ts';

const PACKAGE = 'semver';
const VERSION = '7.6.3';
const CLI = 'semver';
const ROUNDS = 3;
const TARGET = 0.2;
/** Its install folder under the tools folder, as a preset's is `<preset>-<version>` (the folder GitHub's cache keeps). */
const FOLDER = `bench-${PACKAGE}-${VERSION}`;

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
  const install = join(toolsDir(env), FOLDER);
  mkdirSync(join(install, 'bin'), { recursive: true });
  // The step's workspace, which the setup never sees.
  const workspace = { root: join(cache, 'ws'), gitRoot: join(cache, 'ws.git') };
  for (const d of Object.values(workspace)) mkdirSync(d, { recursive: true });
  const started = performance.now();
  await runSetup(ctx, payload, {
    who: 'agent "bench"',
    command: `test -x "$CONVEYOR_INSTALL_DIR/bin/${CLI}" || npm install --global --no-audit --no-fund ${PACKAGE}@${VERSION}`,
    timeoutMinutes: 5,
    cwd: install,
    isolation: agentSetupIsolation(workspace, install, env),
    extra: { PATH: [join(install, 'bin'), env.PATH].join(delimiter), ...installVariables(install), ...TRUST },
  });
  const ms = performance.now() - started;
  execFileSync(join(install, 'bin', CLI), ['--help'], { stdio: 'ignore' });
  return ms;
}

/** actions/cache's save on one runner and restore on the next: a tar of the install folder, unpacked; its time in ms. */
function restore(from: string, to: string): number {
  const started = performance.now();
  const folder = join(to, 'tools', FOLDER);
  mkdirSync(folder, { recursive: true });
  const archive = join(root, `tools-${Math.random().toString(36).slice(2)}.tar`);
  execFileSync('tar', ['-cf', archive, '-C', join(from, 'tools', FOLDER), '.']);
  execFileSync('tar', ['-xf', archive, '-C', folder]);
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
  console.log(`  later step, its folder restored    ${(m.cached / 1000).toFixed(2)} s   (${ratio.toFixed(2)} of the first; target <= ${TARGET})`);
  if (ratio > TARGET) process.exitCode = 1;
} finally {
  rmSync(root, { recursive: true, force: true });
}
