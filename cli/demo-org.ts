// Builds the demo organisation that `conveyor demo` and the end-to-end tests run on: two real bare
// repositories (a storefront and the catalog it consumes) laid out as <remotes>/<owner>/<name>.git,
// the scripted agents, a configuration that points at them, and the demo issue.
import { cp, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { parseDocument } from 'yaml';
import { configSchema } from '../core/config/schema.ts';
import { UsageError } from '../core/errors.ts';
import { shellQuote } from '../core/shell.ts';
import { describeIssues } from '../core/contract/wire.ts';
import { GitRepo } from '../lib/git.ts';
import { replacedInSandbox } from '../lib/sandbox.ts';

/** Where the demo's material lives in this source tree. */
export const DEMO_SOURCE = fileURLToPath(new URL('../examples/demo/', import.meta.url));

/** The demo's repositories, providers first: each is examples/demo/repos/<name>. */
export const DEMO_REPOS = ['demo/catalog', 'demo/storefront'] as const;

/** A file that marks a folder as built by buildDemo, so building again may replace it. */
export const DEMO_MARKER = '.conveyor-demo';

/** The placeholder in examples/demo/conveyor.yml that becomes the agents' folder. */
export const AGENTS_PLACEHOLDER = '{{agents}}';

// The demo's commits carry their own identity and dates: CI has no git identity, and fixed dates
// give the same commit ids on every build. (The git layer keeps the user's own settings, such as
// commit signing, hooks or templates, from changing the demo.)
/** Who made the demo repositories' first commits. */
const DEMO_IDENTITY = { name: 'Conveyor Demo', email: 'demo@conveyor.invalid', date: '2025-01-01T00:00:00Z' };

export interface Demo {
  /** The demo folder (absolute). */
  dir: string;
  /** Folder of the bare repositories, <remotes>/demo/<name>.git: `conveyor run --remotes`. */
  remotes: string;
  /** The configuration with absolute agent paths: `conveyor run --config`. */
  configPath: string;
  issueTitle: string;
  /** The issue's body (without its title line): `conveyor run --body-file`. */
  issueBodyPath: string;
  /** owner/name of each repository, providers first. */
  repos: string[];
}

/**
 * Where the scripted agents run from: Conveyor's own copy, else a copy in the demo folder. Every
 * sandboxed command has a /tmp of its own, so a Conveyor cloned there has agents no command sees.
 */
async function demoAgents(root: string): Promise<string> {
  const own = join(DEMO_SOURCE, 'agents');
  if (!replacedInSandbox(own)) return own;
  if (replacedInSandbox(root))
    throw new UsageError(
      `the demo's agents would be in ${root} and Conveyor's own are in ${own}: both under a folder every sandboxed command sees as its own (/tmp). Give --dir a folder elsewhere (such as ${demoParent()}).`,
    );
  const copy = join(root, 'agents');
  await cp(own, copy, { recursive: true });
  return copy;
}

/** Where a demo folder is made by default: the temporary folder, unless sandboxed commands see their own there (then /var/tmp). */
export function demoParent(): string {
  return replacedInSandbox(tmpdir()) ? '/var/tmp' : tmpdir();
}

export async function buildDemo(dir: string): Promise<Demo> {
  const root = resolve(dir);
  await prepareFolder(root);
  // Marked first, so a build that stopped half-way can be built again.
  await writeFile(join(root, DEMO_MARKER), 'Built by `conveyor demo`; building the demo here again replaces this folder.\n');

  const agentsDir = await demoAgents(root);

  const remotes = join(root, 'remotes');
  for (const repo of DEMO_REPOS) {
    await createBareRepo(join(remotes, `${repo}.git`), join(DEMO_SOURCE, 'repos', basename(repo)));
  }

  const configPath = join(root, 'conveyor.yml');
  await writeFile(configPath, renderConfig(await readFile(join(DEMO_SOURCE, 'conveyor.yml'), 'utf8'), agentsDir));

  const issue = splitIssue(await readFile(join(DEMO_SOURCE, 'issue.md'), 'utf8'));
  const issueBodyPath = join(root, 'issue.md');
  await writeFile(issueBodyPath, issue.body);

  return { dir: root, remotes, configPath, issueTitle: issue.title, issueBodyPath, repos: [...DEMO_REPOS] };
}

/** Makes `root` an empty folder: new, empty, or a previous demo (cleared). Anything else is refused. */
async function prepareFolder(root: string): Promise<void> {
  const info = await stat(root).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return null;
    throw e;
  });
  if (info === null) {
    await mkdir(root, { recursive: true });
    return;
  }
  if (!info.isDirectory()) {
    throw new UsageError(`demo folder ${root} exists and is not a folder; give a new or empty folder`);
  }
  const entries = await readdir(root);
  if (entries.length === 0) return;
  if (!entries.includes(DEMO_MARKER)) {
    throw new UsageError(
      `demo folder ${root} is not empty and is not a previous demo (it has no ${DEMO_MARKER} file); ` +
        'give a new or empty folder, or a folder an earlier `conveyor demo` built',
    );
  }
  for (const entry of entries) await rm(join(root, entry), { recursive: true, force: true });
}

/** A bare repository on `main` holding one commit of the files under `source`. */
async function createBareRepo(bare: string, source: string): Promise<void> {
  await new GitRepo(bare, { identity: DEMO_IDENTITY }).init({ bare: true, initialBranch: 'main' });
  const scratch = await mkdtemp(join(tmpdir(), 'conveyor-demo-'));
  try {
    await cp(source, scratch, { recursive: true, filter: (src) => basename(src) !== 'node_modules' });
    // Every demo service stands its preview up the same way: one copy of the scripts, in each repository.
    await cp(join(DEMO_SOURCE, 'preview'), join(scratch, 'scripts'), { recursive: true });
    const git = new GitRepo(scratch, { identity: DEMO_IDENTITY });
    await git.init({ initialBranch: 'main' });
    await git.commitAll(`Initial ${basename(source)} service\n`);
    await git.push({ to: bare, ref: 'HEAD', branch: 'main', lease: '' });
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** The configuration template with every agent command pointing at `agentsDir`; checked against the schema. */
export function renderConfig(template: string, agentsDir: string): string {
  const doc = parseDocument(template);
  if (doc.errors.length) throw new Error(`examples/demo/conveyor.yml is not valid YAML: ${doc.errors[0]?.message}`);
  const wanted = structuredClone(doc.toJS()) as { agents?: Record<string, { run?: unknown }> };
  for (const agent of Object.values(wanted.agents ?? {})) {
    if (typeof agent.run === 'string') agent.run = agent.run.replaceAll(AGENTS_PLACEHOLDER, shellQuote(agentsDir));
  }
  const parsed = configSchema.safeParse(wanted);
  if (!parsed.success) throw new Error(`examples/demo/conveyor.yml does not match the configuration schema: ${describeIssues(parsed.error)}`);
  // Replacing the text keeps the file as written; a folder name that YAML would read differently
  // (": ", " #") falls back to re-writing the document, which quotes what it must.
  const text = template.replaceAll(AGENTS_PLACEHOLDER, shellQuote(agentsDir));
  if (isDeepStrictEqual(parseDocument(text).toJS(), wanted)) return text;
  for (const [name, agent] of Object.entries(wanted.agents ?? {})) doc.setIn(['agents', name, 'run'], agent.run);
  return doc.toString();
}

/** Splits a Markdown issue into its `# title` line and the body after it. */
export function splitIssue(text: string): { title: string; body: string } {
  const match = /^#[ \t]+(.+)\r?\n/.exec(text);
  if (!match?.[1]) throw new Error('examples/demo/issue.md must start with a "# title" line');
  return { title: match[1].trim(), body: `${text.slice(match[0].length).trim()}\n` };
}
