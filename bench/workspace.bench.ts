// How preparing a workspace scales with the number of sibling repositories. Five bare remotes of
// about 2,000 files and 300 commits each (written with git fast-import), then the time to prepare
// a workspace of all five divided by the time for one, in this one run. Clones run in parallel,
// so the ratio should stay well under 5; the target is <= 1.6.
// The folders live in RAM (/dev/shm) when it exists: on a virtual disk whose file creation is
// serialized (here, five parallel `tar x` of the same files take 3.5x one), the disk, not
// Conveyor, would set the ratio. `--disk` (or BENCH_DIR=folder) measures on the temp disk instead.
// Usage: npx tsx bench/workspace.bench.ts [--disk]
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { prepareWorkspace, type WorkspaceContext } from '../action/src/workspace.ts';

const REPOS = 5;
const FILES = 2000;
const COMMITS = 300;
const ROUNDS = 5;

function fastImportStream(seed: number): string {
  const out: string[] = [];
  const when = 1_700_000_000;
  for (let c = 1; c <= COMMITS; c++) {
    const message = `commit ${c} of repository ${seed}\n`;
    out.push('commit refs/heads/main', `mark :${c}`, `committer Bench <bench@example.com> ${when + c} +0000`, `data ${Buffer.byteLength(message)}`, message);
    if (c > 1) out.push(`from :${c - 1}`);
    const touched = c === 1 ? Array.from({ length: FILES }, (_, i) => i) : Array.from({ length: 7 }, (_, i) => (c * 131 + i * 17) % FILES);
    for (const f of touched) {
      const content = `// file ${f} of repository ${seed}, revision ${c}\n${'export const value = '.concat(String(f * c), ';\n').repeat(4)}`;
      out.push(`M 100644 inline src/dir${f % 40}/file${f}.ts`, `data ${Buffer.byteLength(content)}`, content);
    }
    out.push('');
  }
  return `${out.join('\n')}\n`;
}

function run(cmd: string, args: string[], cwd: string, input?: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, stdio: [input === undefined ? 'ignore' : 'pipe', 'ignore', 'inherit'] });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${cmd} ${args.join(' ')} exited ${code}`))));
    if (input !== undefined) child.stdin?.end(input);
  });
}

async function createRemote(remotes: string, i: number): Promise<string> {
  const repo = `bench/svc${i}`;
  const bare = join(remotes, 'bench', `svc${i}.git`);
  mkdirSync(bare, { recursive: true });
  await run('git', ['init', '--quiet', '--bare', '--initial-branch=main', bare], remotes);
  await run('git', ['fast-import', '--quiet'], bare, fastImportStream(i));
  await run('git', ['gc', '--quiet'], bare);
  return repo;
}

async function time(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? 0;
}

const onDisk = process.argv.includes('--disk');
const base = process.env.BENCH_DIR ?? (!onDisk && existsSync('/dev/shm') ? '/dev/shm' : tmpdir());
const remotes = mkdtempSync(join(base, 'conveyor-bench-remotes-'));
const work = mkdtempSync(join(base, 'conveyor-bench-ws-'));
console.log(`folders under ${base}`);
try {
  const built = performance.now();
  const repos = await Promise.all(Array.from({ length: REPOS }, (_, i) => createRemote(remotes, i)));
  console.log(`built ${REPOS} remotes of ${FILES} files and ${COMMITS} commits in ${((performance.now() - built) / 1000).toFixed(1)} s`);
  const ctx: WorkspaceContext = { serverUrl: `file://${remotes}`, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, scrub: (t) => t };
  const payloadRepo = (repo: string) => ({ repo, role: 'sibling' as const, services: [], base: 'main', workBranch: `conveyor/${repo.split('/')[1]}-1` });
  let n = 0;
  const prepare = async (count: number) => {
    const root = join(work, String(n++));
    const t = await time(() => prepareWorkspace(ctx, repos.slice(0, count).map(payloadRepo), { root, mode: 'work' }));
    rmSync(root, { recursive: true, force: true });
    return t;
  };
  await prepare(1); // warm the page cache
  const one: number[] = [];
  const five: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    one.push(await prepare(1));
    five.push(await prepare(REPOS));
  }
  const ratio = median(five) / median(one);
  console.log(`prepare 1 repo: median ${median(one).toFixed(0)} ms; ${REPOS} repos: median ${median(five).toFixed(0)} ms (${ROUNDS} rounds)`);
  const cores = availableParallelism();
  console.log(`prepare ${REPOS} repos / 1 repo = ${ratio.toFixed(2)}x (target <= 1.6)`);
  // Local clones are CPU work (pack, index, checkout): with fewer cores than repositories the
  // floor is REPOS/cores, whatever the parallelism; a sequential preparation would be ${REPOS}x.
  console.log(`  cores: ${cores}; CPU-bound floor ${Math.max(1, REPOS / cores).toFixed(2)}x; sequential would be ${REPOS}.00x`);
} finally {
  rmSync(remotes, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
}
