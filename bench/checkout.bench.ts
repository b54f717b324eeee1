// Checkouts as fast as plain git (issue #16): five sibling repositories served over smart HTTP
// (`git http-backend` behind a small Node server on 127.0.0.1, with uploadpack.allowFilter and
// uploadpack.allowAnySHA1InWant, as GitHub allows them), cloned in parallel, in this one run, by
//   plain       `git clone` of each,
//   blobless    `git clone --filter=blob:none` of each (what a partial clone costs by itself),
//   conveyor    Conveyor's workspace preparation for a code step's own attempt (prepareWorkspace,
//               mode `work`, fresh): the heads listed, then the work branch the run's draft PR
//               started (one empty commit on the base) with its parent, shallow, checked out,
// on a short-history set (2,000 files, 300 commits) and a long-history set (2,000 files, 5,000
// commits). Rounds are interleaved, the order rotating, after a warm-up of each; medians compared.
// The target is conveyor/plain <= 1.1 on both sets.
// The server runs on the same cores as the clients: its CPU (each request is an http-backend and
// an upload-pack process) counts in the times, which a remote server's would not. It runs in a
// process of its own, so the bench prints the CPU of the clients and of the server apart.
// Folders live in RAM (/dev/shm) when it exists, so the disk does not set the ratio; `--disk`
// (or BENCH_DIR=folder) measures on the temp disk instead.
// Usage: npx tsx bench/checkout.bench.ts [--disk]
import { execFileSync, fork, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { prepareWorkspace, type WorkspaceContext } from '../action/src/workspace.ts';
import { serveGit } from '../test/helpers/git-http.ts';
import { createBareRepo, type History } from './repos.ts';

const REPOS = 5;
const SETS: { name: string; history: History }[] = [
  { name: 'short', history: { files: 2000, commits: 300 } },
  { name: 'long', history: { files: 2000, commits: 5000 } },
];
const ROUNDS = 5;
const TARGET = 1.1;
const SIDES = ['plain', 'blobless', 'conveyor'] as const;
type Side = (typeof SIDES)[number];

const GIT_ENV = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: tmpdir(), GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };

function git(args: string[], cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, { cwd, env: GIT_ENV, stdio: ['ignore', 'ignore', 'inherit'] });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`git ${args.join(' ')} exited ${code}`))));
  });
}

/** CPU milliseconds a process used, with the processes it waited for (Linux /proc); undefined elsewhere. */
const ticksPerSecond = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' })) || 100;
  } catch {
    return 100;
  }
})();
function processCpu(pid: number | 'self'): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    const ticks = Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]); // utime stime cutime cstime
    return Number.isFinite(ticks) ? (ticks * 1000) / ticksPerSecond : undefined;
  } catch {
    return undefined;
  }
}

interface Sample {
  wall: number;
  /** CPU of this process and the git processes it ran (the clients), and of the server's processes. */
  client: number | undefined;
  server: number | undefined;
}

async function measure(serverPid: number, fn: () => Promise<unknown>): Promise<Sample> {
  const before = [processCpu('self'), processCpu(serverPid)];
  const start = performance.now();
  await fn();
  const wall = performance.now() - start;
  const after = [processCpu('self'), processCpu(serverPid)];
  const used = (i: number) => (before[i] === undefined || after[i] === undefined ? undefined : after[i]! - before[i]!);
  return { wall, client: used(0), server: used(1) };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

async function bench(): Promise<void> {
  const onDisk = process.argv.includes('--disk');
  const base = process.env.BENCH_DIR ?? (!onDisk && existsSync('/dev/shm') ? '/dev/shm' : tmpdir());
  const remotes = mkdtempSync(join(base, 'conveyor-bench-remotes-'));
  const work = mkdtempSync(join(base, 'conveyor-bench-clones-'));
  const server = fork(fileURLToPath(import.meta.url), ['--serve', remotes], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const url = await new Promise<string>((resolve, reject) => {
    server.once('message', (m) => resolve(String(m)));
    server.once('exit', (code) => reject(new Error(`the git server exited with ${code}`)));
  });
  const cores = availableParallelism();
  console.log(`folders under ${base}; ${cores} core(s); load average ${loadavg()[0]?.toFixed(2)}; server ${url}`);
  try {
    const built = performance.now();
    await Promise.all(SETS.flatMap((set) => Array.from({ length: REPOS }, (_, i) => createBareRepo(join(remotes, set.name, `svc${i}.git`), i, set.history))));
    console.log(`built ${SETS.length} x ${REPOS} repositories with git fast-import in ${((performance.now() - built) / 1000).toFixed(1)} s`);
    // What a run's start leaves on GitHub (app/start.ts): the work branch of its draft PR, one empty
    // commit on the base. A code step's own attempt starts from it.
    for (const set of SETS) {
      for (let i = 0; i < REPOS; i++) {
        const bare = join(remotes, set.name, `svc${i}.git`);
        const start = execFileSync('git', ['commit-tree', 'main^{tree}', '-p', 'main', '-m', 'Conveyor starts here'], {
          cwd: bare,
          env: {
            ...GIT_ENV,
            GIT_AUTHOR_NAME: 'bench',
            GIT_AUTHOR_EMAIL: 'bench@example.com',
            GIT_COMMITTER_NAME: 'bench',
            GIT_COMMITTER_EMAIL: 'bench@example.com',
          },
          encoding: 'utf8',
        }).trim();
        execFileSync('git', ['update-ref', `refs/heads/conveyor/svc${i}-1`, start], { cwd: bare, env: GIT_ENV });
      }
    }

    const ctx: WorkspaceContext = { serverUrl: url, scrub: (t) => t };
    let n = 0;
    const cloneFive = async (set: string, side: Side): Promise<Sample> => {
      const root = join(work, String(n++));
      const names = Array.from({ length: REPOS }, (_, i) => `${set}/svc${i}`);
      const sample = await measure(server.pid!, () => {
        if (side === 'conveyor') {
          const repos = names.map((repo) => ({ repo, role: 'sibling' as const, services: [], base: 'main', workBranch: `conveyor/${repo.split('/')[1]}-1` }));
          return prepareWorkspace(ctx, repos, { root, mode: 'work', fresh: true });
        }
        const filter = side === 'blobless' ? ['--filter=blob:none'] : [];
        return Promise.all(names.map((repo) => git(['clone', '--quiet', ...filter, `${url}/${repo}.git`, join(root, repo.replace('/', '__'))], work)));
      });
      rmSync(root, { recursive: true, force: true });
      return sample;
    };

    for (const set of SETS) {
      const samples = new Map<Side, Sample[]>(SIDES.map((s) => [s, []]));
      for (const side of SIDES) await cloneFive(set.name, side); // warm the page cache and the code paths
      for (let r = 0; r < ROUNDS; r++) {
        // Rotate the order, so that no side always runs right after another.
        for (let k = 0; k < SIDES.length; k++) {
          const side = SIDES[(r + k) % SIDES.length]!;
          samples.get(side)!.push(await cloneFive(set.name, side));
        }
      }
      const wall = (side: Side) => median(samples.get(side)!.map((s) => s.wall));
      const cpu = (side: Side, of: 'client' | 'server') => {
        const all = samples.get(side)!.map((s) => s[of]);
        return all.every((c) => c !== undefined) ? all.reduce((a, c) => a + c!, 0) / all.length : undefined;
      };
      const { files, commits } = set.history;
      console.log(`\n${set.name} history (${files} files, ${commits} commits), ${REPOS} repositories in parallel, median of ${ROUNDS} interleaved rounds:`);
      for (const side of SIDES) {
        const client = cpu(side, 'client');
        const serverCpu = cpu(side, 'server');
        const cpuText = client === undefined || serverCpu === undefined ? '' : `; CPU: clients ${client.toFixed(0)} ms, server ${serverCpu.toFixed(0)} ms`;
        console.log(`  ${side.padEnd(9)} ${wall(side).toFixed(0).padStart(6)} ms wall${cpuText}`);
      }
      const clientRatio = (side: Side) => {
        const c = cpu(side, 'client');
        const p = cpu('plain', 'client');
        return c === undefined || p === undefined ? '' : ` (clients' CPU ${(c / p).toFixed(2)}x)`;
      };
      console.log(`  git clone --filter=blob:none / git clone = ${(wall('blobless') / wall('plain')).toFixed(2)}x${clientRatio('blobless')}`);
      console.log(`  Conveyor / git clone = ${(wall('conveyor') / wall('plain')).toFixed(2)}x${clientRatio('conveyor')} (target <= ${TARGET})`);
    }
  } finally {
    server.disconnect();
    rmSync(remotes, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
  }
}

/** The server's own process: `--serve <folder>` serves it and sends its URL to the parent. */
if (process.argv[2] === '--serve') {
  const http = await serveGit(process.argv[3]!, { config: { 'uploadpack.allowFilter': 'true', 'uploadpack.allowAnySHA1InWant': 'true' } });
  process.send?.(http.url);
  process.on('disconnect', () => void http.close().then(() => process.exit(0)));
} else {
  await bench();
}
