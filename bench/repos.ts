// Bare repositories for the benchmarks, with history written by `git fast-import` (seconds for
// thousands of commits, where a commit per `git commit` would take minutes), then packed as a
// well-kept server keeps them. The first commit holds every file; each later one changes seven.
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';

export interface History {
  files: number;
  commits: number;
}

function fastImportStream(seed: number, { files, commits }: History): string {
  const out: string[] = [];
  const when = 1_700_000_000;
  for (let c = 1; c <= commits; c++) {
    const message = `commit ${c} of repository ${seed}\n`;
    out.push('commit refs/heads/main', `mark :${c}`, `committer Bench <bench@example.com> ${when + c} +0000`, `data ${Buffer.byteLength(message)}`, message);
    if (c > 1) out.push(`from :${c - 1}`);
    const touched = c === 1 ? Array.from({ length: files }, (_, i) => i) : Array.from({ length: 7 }, (_, i) => (c * 131 + i * 17) % files);
    for (const f of touched) {
      const content = `// file ${f} of repository ${seed}, revision ${c}\n${'export const value = '.concat(String(f * c), ';\n').repeat(4)}`;
      out.push(`M 100644 inline src/dir${f % 40}/file${f}.ts`, `data ${Buffer.byteLength(content)}`, content);
    }
    out.push('');
  }
  return `${out.join('\n')}\n`;
}

/** Runs a command to its end; its stderr shows, its stdout is dropped. */
export function run(cmd: string, args: string[], cwd: string, input?: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, stdio: [input === undefined ? 'ignore' : 'pipe', 'ignore', 'inherit'] });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${cmd} ${args.join(' ')} exited ${code}`))));
    if (input !== undefined) child.stdin?.end(input);
  });
}

/** A bare repository at `bare` whose `main` has `history`; `seed` makes each repository's contents its own. */
export async function createBareRepo(bare: string, seed: number, history: History): Promise<void> {
  mkdirSync(bare, { recursive: true });
  await run('git', ['init', '--quiet', '--bare', '--initial-branch=main', bare], bare);
  await run('git', ['fast-import', '--quiet'], bare, fastImportStream(seed, history));
  await run('git', ['gc', '--quiet'], bare);
}
