// Which action the embedded mode's step processes run: a clone of Conveyor (its .git, the action's
// sources, tsx) runs the sources, so a change runs without `npm run bundle`; an installed Conveyor
// (no .git, or no sources) runs the bundle, as GitHub's runners do. First with stand-in entries
// that say which ran, then with the real action: a copy of the package holding only the bundle,
// and a clone whose bundle is broken, each running a real gate step through the dispatcher.
import { cpSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { actionCommand, createLocalDispatcher, PACKAGE_ROOT } from '../../../adapters/dispatch/local.ts';
import { attemptFolder, refOf } from '../../../core/contract/attempt-ref.ts';
import { bundleAction } from '../../../scripts/action-build.ts';
import { gateStep, makePayload } from '../../helpers/payload.ts';
import { createRemotes, removeDir, tempDir, type Remotes } from '../../helpers/repos.ts';

let dir: string;
let remotes: Remotes;
beforeEach(() => {
  dir = tempDir('conveyor-action-command-');
  remotes = createRemotes();
  remotes.create('acme/web', { 'README.md': 'web\n' });
});
afterEach(() => {
  removeDir(dir);
  remotes.cleanup();
});

const payload = makePayload({ repos: [{ repo: 'acme/web' }], step: gateStep({ run: 'test -f README.md' }) });

interface PackageShape {
  /** `.git` as a clone has it (a folder) or a git worktree (a file); none when installed. */
  git?: 'folder' | 'file';
  sources: boolean;
  /** node_modules (this checkout's, linked), where tsx resolves from. */
  deps: boolean;
}

/** A Conveyor package whose entries are stand-ins: each writes which one ran (and where) beside the attempt's payload. */
function standInPackage(name: string, shape: PackageShape): string {
  const root = join(dir, name);
  mkdirSync(join(root, 'action/dist'), { recursive: true });
  writeFileSync(join(root, 'package.json'), '{ "type": "module" }\n');
  const say = (ran: string, typed: boolean) =>
    "import { writeFileSync } from 'node:fs';\nimport { dirname, join } from 'node:path';\n" +
    // The sources' stand-in is TypeScript (a type annotation, a non-null assertion): only tsx runs it.
    `const ran${typed ? ': string' : ''} = '${ran}';\n` +
    `writeFileSync(join(dirname(process.env.CONVEYOR_PAYLOAD_PATH${typed ? '!' : ''}), 'ran.txt'), \`\${ran} in \${process.cwd()}\`);\n`;
  writeFileSync(join(root, 'action/dist/index.js'), say('bundle', false));
  if (shape.sources) {
    mkdirSync(join(root, 'action/src'), { recursive: true });
    writeFileSync(join(root, 'action/src/index.ts'), say('sources', true));
  }
  if (shape.git === 'folder') mkdirSync(join(root, '.git'));
  if (shape.git === 'file') writeFileSync(join(root, '.git'), 'gitdir: /somewhere/.git/worktrees/x\n');
  if (shape.deps) symlinkSync(join(PACKAGE_ROOT, 'node_modules'), join(root, 'node_modules'));
  return root;
}

async function ranIn(root: string): Promise<string> {
  const state = join(dir, `state-${root.split('/').pop()}`);
  const outcome = await createLocalDispatcher({ stateDir: state, remotes: remotes.dir, packageRoot: root }).run(payload);
  expect(outcome.kind).toBe('lost'); // a stand-in reports no result
  return readFileSync(join(state, 'attempts', attemptFolder(refOf(payload)), 'ran.txt'), 'utf8');
}

describe('the action a step process runs', () => {
  it.each<[string, 'sources' | 'bundle', PackageShape]>([
    ['a clone', 'sources', { git: 'folder', sources: true, deps: true }],
    ['a git worktree', 'sources', { git: 'file', sources: true, deps: true }],
    ['an installed package (no .git)', 'bundle', { sources: true, deps: true }],
    ['a copy without the sources', 'bundle', { git: 'folder', sources: false, deps: true }],
    ['a clone without its dependencies (no tsx)', 'bundle', { git: 'folder', sources: true, deps: false }],
  ])('in %s: the %s', async (name, expected, shape) => {
    const root = standInPackage(name.replace(/\W+/g, '-'), shape);
    expect(actionCommand(root).from).toBe(expected);
    const ran = await ranIn(root);
    // The sources start in the package's folder, where tsx finds its tsconfig.json.
    expect(ran).toEqual(expected === 'sources' ? `sources in ${root}` : expect.stringMatching(/^bundle in /));
  });

  it('is the sources in this checkout, a clone', () => {
    expect(actionCommand()).toMatchObject({ from: 'sources', cwd: PACKAGE_ROOT });
    expect(actionCommand().args.at(-1)).toBe(join(PACKAGE_ROOT, 'action/src/index.ts'));
  });
});

describe('the real action through the local dispatcher', () => {
  it('a copy of the package without sources runs its bundle: a real gate passes', async () => {
    const root = join(dir, 'installed');
    mkdirSync(root);
    cpSync(join(PACKAGE_ROOT, 'package.json'), join(root, 'package.json'));
    symlinkSync(join(PACKAGE_ROOT, 'node_modules'), join(root, 'node_modules'));
    await bundleAction(join(root, 'action/dist'));
    expect(actionCommand(root).from).toBe('bundle');
    const state = join(dir, 'state');
    const outcome = await createLocalDispatcher({ stateDir: state, remotes: remotes.dir, packageRoot: root }).run(payload);
    expect(outcome, readFileSync(join(state, 'attempts', attemptFolder(refOf(payload)), 'output.log'), 'utf8')).toMatchObject({
      kind: 'result',
      result: { conclusion: 'success', step: 'test' },
    });
  }, 120_000);

  it('a clone runs its sources, not its bundle: a real gate passes though the bundle is broken', async () => {
    const root = join(dir, 'clone');
    for (const part of ['action/src', 'adapters', 'core', 'engine', 'lib', 'package.json', 'tsconfig.json'])
      cpSync(join(PACKAGE_ROOT, part), join(root, part), { recursive: true });
    mkdirSync(join(root, '.git'));
    symlinkSync(join(PACKAGE_ROOT, 'node_modules'), join(root, 'node_modules'));
    mkdirSync(join(root, 'action/dist'));
    writeFileSync(join(root, 'action/dist/index.js'), 'process.exit(97);\n');
    const state = join(dir, 'state');
    const outcome = await createLocalDispatcher({ stateDir: state, remotes: remotes.dir, packageRoot: root }).run(payload);
    expect(outcome, readFileSync(join(state, 'attempts', attemptFolder(refOf(payload)), 'output.log'), 'utf8')).toMatchObject({
      kind: 'result',
      result: { conclusion: 'success', step: 'test' },
    });
  }, 120_000);
});
