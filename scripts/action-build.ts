// The action's build for GitHub's runners, which have no node_modules, into action/dist:
//   index.js  the entry action.yml runs: it turns source maps on, then imports main.js;
//   main.js   the step runner, with the chunks it imports statically: what every step loads;
//   *.js      chunks loaded by dynamic import only when reached (the artifact upload, most of the
//             code, when a transcript is kept; the local forge in the embedded mode);
//   *.js.map  each file's linked source map.
// `npm run bundle` (scripts/bundle.js) writes it; `npm test` (scripts/check-generated.js) runs
// `tsx scripts/action-build.ts --check`: every file must match what the sources give, and what
// every step loads must stay within STARTUP_BUDGET.
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type BuildOptions, type Metafile, type OutputFile } from 'esbuild';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const DIST = 'action/dist';
/** The step runner's entry: its output and what that imports statically are what every step loads. */
export const MAIN_ENTRY = 'action/src/main.ts';
/**
 * Bytes main.js and its static imports may take: about 2.3 MB at the time of writing (the artifact
 * upload, 3.3 MB more, is a chunk of its own), so a dependency of ~700 kB can still join them.
 */
export const STARTUP_BUDGET = 3_000_000;

/** esbuild's options for the action, written to `outdir` (relative to the repository, or absolute). */
export function actionBuildOptions(outdir: string = DIST): BuildOptions & { metafile: true } {
  return {
    absWorkingDir: ROOT,
    entryPoints: { index: 'action/src/index.ts', main: MAIN_ENTRY },
    outdir,
    bundle: true,
    // Each dynamic import becomes a chunk of its own, loaded only when reached.
    splitting: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // CommonJS dependencies call require(); an ESM bundle has none unless we make one.
    banner: { js: "import { createRequire as __conveyorCreateRequire } from 'node:module'; const require = __conveyorCreateRequire(import.meta.url);" },
    // The native SQLite module is only loaded (by dynamic import) in the embedded mode, where
    // node_modules exists; on GitHub's runners it is never touched.
    external: ['better-sqlite3'],
    // Stack traces name the sources' lines (index.ts turns maps on). The maps name the sources,
    // which are in the repository beside them, without carrying their text again.
    sourcemap: 'linked',
    sourcesContent: false,
    // node_modules may be a link (a git worktree shares the main checkout's): paths through it keep
    // the output the same wherever it is built.
    preserveSymlinks: true,
    metafile: true,
    legalComments: 'none',
    logLevel: 'warning',
  };
}

/** The build's own files in a folder: the chunks and maps an earlier build left go before the next one. */
function builtFiles(dir: string): string[] {
  try {
    return readdirSync(dir).filter((name) => name.endsWith('.js') || name.endsWith('.js.map'));
  } catch {
    return [];
  }
}

/** Builds into `outdir` (default action/dist), first removing the chunks and maps of an earlier build there. */
export async function bundleAction(outdir: string = DIST): Promise<Metafile> {
  const dir = resolve(ROOT, outdir);
  for (const name of builtFiles(dir)) rmSync(join(dir, name));
  return (await build(actionBuildOptions(outdir))).metafile;
}

/** What main.js loads before it runs a step: itself and each chunk it imports statically (absolute path → bytes). */
export function startupFiles(metafile: Metafile): Map<string, number> {
  const outputs = new Map(Object.entries(metafile.outputs).map(([path, o]) => [resolve(ROOT, path), o]));
  const main = [...outputs].find(([, o]) => o.entryPoint === MAIN_ENTRY);
  if (!main) throw new Error(`the build has no output for ${MAIN_ENTRY}`);
  const seen = new Map<string, number>();
  const visit = (path: string) => {
    const o = outputs.get(path);
    if (!o || seen.has(path)) return;
    seen.set(path, o.bytes);
    for (const i of o.imports) if (i.kind === 'import-statement') visit(resolve(ROOT, i.path));
  };
  visit(main[0]);
  return seen;
}

/** Why what every step loads is too big, naming its size, the budget and its files; undefined within the budget. */
export function startupProblem(startup: Map<string, number>, budget: number = STARTUP_BUDGET): string | undefined {
  const bytes = [...startup.values()].reduce((a, b) => a + b, 0);
  if (bytes <= budget) return undefined;
  const files = [...startup]
    .sort((a, b) => b[1] - a[1])
    .map(([path, size]) => `${relative(ROOT, path)} ${size}`)
    .join(', ');
  return (
    `what every step loads (${DIST}/main.js and the chunks it imports) is ${bytes} bytes, over its budget of ${budget} (${files}): ` +
    'load what only some steps need by dynamic import, which makes it a chunk of its own, or raise STARTUP_BUDGET in scripts/action-build.ts saying why'
  );
}

/** Each file of `dir` that differs from the build's output, is missing, or is no longer built, with why. */
export function distDifferences(outputFiles: readonly OutputFile[], dir: string): string[] {
  const expected = new Map(outputFiles.map((f) => [relative(dir, f.path), f.contents]));
  const out: string[] = [];
  for (const [name, contents] of expected) {
    let committed: Buffer;
    try {
      committed = readFileSync(join(dir, name));
    } catch {
      out.push(`${name} (missing)`);
      continue;
    }
    if (!committed.equals(contents)) out.push(`${name} (differs)`);
  }
  for (const name of builtFiles(dir)) if (!expected.has(name)) out.push(`${name} (no longer built)`);
  return out;
}

/** The check of `npm test`: exits 1, saying what is wrong, when action/dist is stale or what every step loads is over budget. */
async function check(): Promise<number> {
  // Built in memory for action/dist itself: the source maps name the sources relative to where they are.
  const fresh = await build({ ...actionBuildOptions(DIST), write: false });
  let code = 0;
  const stale = distDifferences(fresh.outputFiles, join(ROOT, DIST));
  if (stale.length) {
    console.error(`${DIST} does not match action/src: ${stale.join(', ')}. Run \`npm run bundle\` and commit every file of ${DIST}.`);
    code = 1;
  } else {
    console.log(`${DIST} is up to date (${fresh.outputFiles.length} files)`);
  }
  const startup = startupFiles(fresh.metafile);
  const problem = startupProblem(startup);
  if (problem) {
    console.error(problem);
    code = 1;
  } else {
    console.log(`what every step loads is ${[...startup.values()].reduce((a, b) => a + b, 0)} bytes, within its budget of ${STARTUP_BUDGET}`);
  }
  return code;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--check')) process.exit(await check());
  await bundleAction(process.argv[2]);
}
