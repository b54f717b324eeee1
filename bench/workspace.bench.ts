// How preparing a workspace scales with the number of sibling repositories. Five bare remotes of
// about 2,000 files and 300 commits each (written with git fast-import), then the time to prepare
// a workspace of all five divided by the time for one, in this one run: the real prepareWorkspace
// on both sides, rounds interleaved (1-5, 5-1, ...) after a warm-up of each, medians compared.
// The target is <= 1.6.
// Preparing is CPU work (a local clone copies the object store; checkout writes every file), so
// the five cannot finish faster than their CPU time divided by the cores. The bench measures that
// CPU (this process plus every git process it waited for) and prints the floor it sets.
// The folders live in RAM (/dev/shm) when it exists: on a virtual disk whose file creation is
// serialized (here, five parallel `tar x` of the same files take 3.5x one), the disk, not
// Conveyor, would set the ratio. `--disk` (or BENCH_DIR=folder) measures on the temp disk instead.
// Usage: npx tsx bench/workspace.bench.ts [--disk]
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { prepareWorkspace, type WorkspaceContext } from '../action/src/workspace.ts';
import { createBareRepo } from './repos.ts';

const REPOS = 5;
const FILES = 2000;
const COMMITS = 300;
const ROUNDS = 9;
const TARGET = 1.6;

async function createRemote(remotes: string, i: number): Promise<string> {
  await createBareRepo(join(remotes, 'bench', `svc${i}.git`), i, { files: FILES, commits: COMMITS });
  return `bench/svc${i}`;
}

/** CPU milliseconds of the git processes this process waited for (Linux); undefined elsewhere. */
const ticksPerSecond = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' })) || 100;
  } catch {
    return 100;
  }
})();
function childrenCpu(): number | undefined {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]?.split(' ') ?? [];
    const ticks = Number(fields[13]) + Number(fields[14]); // cutime + cstime
    return Number.isFinite(ticks) ? (ticks * 1000) / ticksPerSecond : undefined;
  } catch {
    return undefined;
  }
}

interface Sample {
  wall: number;
  /** This process and the git processes it ran, ms; undefined when children cannot be measured. */
  cpu: number | undefined;
}

async function measure(fn: () => Promise<unknown>): Promise<Sample> {
  const children = childrenCpu();
  const self = process.cpuUsage();
  const start = performance.now();
  await fn();
  const wall = performance.now() - start;
  const used = process.cpuUsage(self);
  const after = childrenCpu();
  const cpu = children === undefined || after === undefined ? undefined : after - children + (used.user + used.system) / 1000;
  return { wall, cpu };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? 0;
}

const onDisk = process.argv.includes('--disk');
const base = process.env.BENCH_DIR ?? (!onDisk && existsSync('/dev/shm') ? '/dev/shm' : tmpdir());
const remotes = mkdtempSync(join(base, 'conveyor-bench-remotes-'));
const work = mkdtempSync(join(base, 'conveyor-bench-ws-'));
console.log(`folders under ${base}; load average ${loadavg()[0]?.toFixed(2)} (other processes on these cores raise both times and the ratio)`);
try {
  const built = performance.now();
  const repos = await Promise.all(Array.from({ length: REPOS }, (_, i) => createRemote(remotes, i)));
  console.log(`built ${REPOS} remotes of ${FILES} files and ${COMMITS} commits in ${((performance.now() - built) / 1000).toFixed(1)} s`);
  const ctx: WorkspaceContext = { serverUrl: `file://${remotes}`, scrub: (t) => t };
  const payloadRepo = (repo: string) => ({ repo, role: 'sibling' as const, services: [], base: 'main', workBranch: `conveyor/${repo.split('/')[1]}-1` });
  let n = 0;
  const prepare = async (count: number): Promise<Sample> => {
    const root = join(work, String(n++));
    const sample = await measure(() => prepareWorkspace(ctx, repos.slice(0, count).map(payloadRepo), { root, mode: 'work' }));
    rmSync(root, { recursive: true, force: true });
    return sample;
  };
  await prepare(1); // warm the page cache and the code paths of both sides
  await prepare(REPOS);
  const one: Sample[] = [];
  const five: Sample[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    // Alternate which side goes first, so that neither always runs right after the other.
    if (r % 2 === 0) {
      one.push(await prepare(1));
      five.push(await prepare(REPOS));
    } else {
      five.push(await prepare(REPOS));
      one.push(await prepare(1));
    }
  }
  const wallOne = median(one.map((s) => s.wall));
  const wallFive = median(five.map((s) => s.wall));
  const ratio = wallFive / wallOne;
  console.log(`prepare 1 repo: median ${wallOne.toFixed(0)} ms; ${REPOS} repos: median ${wallFive.toFixed(0)} ms (${ROUNDS} interleaved rounds)`);
  console.log(`prepare ${REPOS} repos / 1 repo = ${ratio.toFixed(2)}x (target <= ${TARGET})`);
  const cores = availableParallelism();
  const onCores = `${cores} core${cores === 1 ? '' : 's'}`;
  // CPU is summed over the rounds: the kernel counts children's time in 10 ms ticks.
  const cpuOne = one.every((s) => s.cpu !== undefined) ? one.reduce((a, s) => a + (s.cpu ?? 0), 0) / ROUNDS : undefined;
  const cpuFive = five.every((s) => s.cpu !== undefined) ? five.reduce((a, s) => a + (s.cpu ?? 0), 0) / ROUNDS : undefined;
  if (cpuOne === undefined || cpuFive === undefined) {
    console.log(`  cores: ${cores}; CPU not measurable here; sequential would be ${REPOS}.00x`);
  } else {
    const floor = Math.max(1, cpuFive / cores / wallOne);
    console.log(
      `  CPU per preparation: 1 repo ${cpuOne.toFixed(0)} ms (a core ${((100 * cpuOne) / wallOne).toFixed(0)}% busy for its ${wallOne.toFixed(0)} ms); ` +
        `${REPOS} repos ${cpuFive.toFixed(0)} ms`,
    );
    console.log(`  cores: ${cores}; CPU floor ${floor.toFixed(2)}x (${REPOS} repos' CPU / ${onCores} / 1 repo's time); sequential would be ${REPOS}.00x`);
    if (ratio > TARGET) {
      const needed = Math.ceil(cpuFive / (TARGET * wallOne));
      console.log(
        `  target not reached: ${REPOS} preparations need ${cpuFive.toFixed(0)} ms of CPU, so on ${onCores} they cannot take under ` +
          `${(cpuFive / cores).toFixed(0)} ms = ${floor.toFixed(2)}x one; ${TARGET}x needs ${needed} cores (at this CPU per preparation) ` +
          `or a preparation that waits more than it computes. Measured ${ratio.toFixed(2)}x is ${((100 * ratio) / floor - 100).toFixed(0)}% above that floor.`,
      );
    }
  }
} finally {
  rmSync(remotes, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
}
