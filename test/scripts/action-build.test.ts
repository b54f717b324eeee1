// The action's build (scripts/action-build.ts), as `npm test` checks it: the artifact upload is a
// chunk that only a kept transcript loads, every file of action/dist is compared with what the
// sources give (a stale, missing or left-over file is named), and what every step loads has a
// budget whose breach names the size, the budget and the files.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { build, type BuildResult, type OutputFile } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actionBuildOptions, distDifferences, DIST, ROOT, STARTUP_BUDGET, startupFiles, startupProblem } from '../../scripts/action-build.ts';
import { removeDir, tempDir } from '../helpers/repos.ts';

let fresh: BuildResult & { outputFiles: OutputFile[]; metafile: NonNullable<BuildResult['metafile']> };
let dir: string;
beforeAll(async () => {
  fresh = await build({ ...actionBuildOptions(DIST), write: false });
  dir = tempDir('conveyor-dist-');
}, 60_000);
afterAll(() => removeDir(dir));

/** The sources (repository-relative) that went into the given output files (absolute paths). */
function inputsOf(paths: Iterable<string>): string[] {
  const wanted = new Set(paths);
  return Object.entries(fresh.metafile.outputs).flatMap(([path, o]) => (wanted.has(join(ROOT, path)) ? Object.keys(o.inputs) : []));
}

describe("the action's build", () => {
  it('loads the artifact upload only by dynamic import: every step loads main.js and its chunks, without it', () => {
    const startup = startupFiles(fresh.metafile);
    expect([...startup.keys()].map((p) => relative(ROOT, p))).toContain(`${DIST}/main.js`);
    expect([...startup.keys()].map((p) => relative(ROOT, p))).not.toContain(`${DIST}/index.js`);
    const loaded = inputsOf(startup.keys());
    expect(loaded).toContain('action/src/entry.ts');
    expect(loaded.filter((i) => i.includes('@actions/artifact'))).toEqual([]);
    // ...and it is in the build, in a chunk of its own, with its source map beside it.
    const artifact = Object.entries(fresh.metafile.outputs).find(([, o]) => Object.keys(o.inputs).some((i) => i.includes('node_modules/@actions/artifact/')));
    expect(artifact).toBeDefined();
    expect(startup.has(join(ROOT, artifact![0]))).toBe(false);
    const names = fresh.outputFiles.map((f) => relative(join(ROOT, DIST), f.path));
    for (const js of names.filter((n) => n.endsWith('.js'))) expect(names, js).toContain(`${js}.map`);
    expect(startupProblem(startup)).toBeUndefined();
  });

  it('names the size, the budget and the files when what every step loads is over its budget', () => {
    const startup = startupFiles(fresh.metafile);
    const bytes = [...startup.values()].reduce((a, b) => a + b, 0);
    expect(bytes).toBeLessThanOrEqual(STARTUP_BUDGET);
    const problem = startupProblem(startup, bytes - 1);
    expect(problem).toContain(`is ${bytes} bytes, over its budget of ${bytes - 1}`);
    expect(problem).toContain(`${DIST}/main.js ${startup.get(join(ROOT, DIST, 'main.js'))}`);
    expect(startupProblem(startup, bytes)).toBeUndefined();
  });

  it('compares every file of the folder with the build: a differing, a missing and a left-over one are each named', () => {
    const out = join(dir, 'dist');
    mkdirSync(out, { recursive: true });
    const files = fresh.outputFiles.map((f) => ({ ...f, path: join(out, relative(join(ROOT, DIST), f.path)) }));
    for (const f of files) writeFileSync(f.path, f.contents);
    expect(distDifferences(files, out)).toEqual([]);
    const [first, second] = files.filter((f) => f.path.endsWith('.js'));
    writeFileSync(first!.path, 'stale');
    removeDir(second!.path);
    writeFileSync(join(out, 'chunk-OLD.js'), 'left over');
    // Not the build's: kept and ignored.
    writeFileSync(join(out, 'README.txt'), 'notes');
    expect(distDifferences(files, out).sort()).toEqual(
      [`${relative(out, first!.path)} (differs)`, `${relative(out, second!.path)} (missing)`, 'chunk-OLD.js (no longer built)'].sort(),
    );
  });
});
