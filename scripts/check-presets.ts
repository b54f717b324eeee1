// Checks every flag the agent presets use (core/config/presets.ts) against the real CLIs' `--help`:
// installs each npm-published CLI into a temporary prefix (never into this project), runs the help
// invocations the preset names, and looks for each flag as a word of that output. Exits 1 naming
// every missing flag.
//
//   npx tsx scripts/check-presets.ts            the latest published versions (to catch drift)
//   npx tsx scripts/check-presets.ts --checked  the versions the README lists as checked
//
// Aider ships on PyPI: it is checked when an `aider` executable is on PATH, and said to be skipped
// otherwise (the machines this was written on cannot reach PyPI; its flags were checked against its
// options reference).
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { PRESETS, presetFlags, presetInstall, type Preset } from '../core/config/presets.ts';

const checked = process.argv.includes('--checked');
const prefix = mkdtempSync(join(tmpdir(), 'conveyor-presets-'));
const missing: string[] = [];

/** A flag is there when it appears as a word of the help text (not as part of a longer flag). */
function helpShows(help: string, flag: string): boolean {
  const escaped = flag.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(^|[\\s,\\[(])${escaped}(?=$|[\\s,=\\]<)])`, 'm').test(help);
}

function helpOf(exe: string, args: string[], env: NodeJS.ProcessEnv): string {
  const r = spawnSync(exe, args, { env, encoding: 'utf8', timeout: 120_000 });
  return `${r.stdout ?? ''}\n${r.stderr ?? ''}`;
}

function check(preset: Preset, exe: string, env: NodeJS.ProcessEnv, version: string): void {
  const help = preset.help.map((args) => helpOf(exe, args, env)).join('\n');
  const absent = presetFlags(preset).filter((f) => !helpShows(help, f));
  for (const f of absent) missing.push(`${preset.name}: ${f} is not in \`${preset.cli} ${preset.help.map((h) => h.join(' ')).join('` / `')}\` (${version})`);
  console.log(`${absent.length ? '✗' : '✓'} ${preset.name} ${version}: ${presetFlags(preset).join(' ')}`);
}

try {
  const npm = Object.values(PRESETS).filter((p) => p.package.registry === 'npm');
  const specs = npm.map((p) => `${p.package.name}@${checked ? p.version : 'latest'}`);
  console.log(`installing ${specs.join(' ')} into ${prefix}`);
  execFileSync('npm', ['install', '--prefix', prefix, '--no-audit', '--no-fund', '--loglevel=error', ...specs], { stdio: 'inherit' });
  const env = { ...process.env, PATH: `${join(prefix, 'node_modules', '.bin')}${delimiter}${process.env.PATH ?? ''}`, NO_COLOR: '1' };
  for (const preset of npm) {
    const version =
      (execFileSync('npm', ['ls', '--prefix', prefix, '--depth=0', '--json', preset.package.name], { encoding: 'utf8' }).match(/"version":\s*"([^"]+)"/) ??
        [])[1] ?? '?';
    check(preset, join(prefix, 'node_modules', '.bin', preset.cli), env, version);
  }
  for (const preset of Object.values(PRESETS).filter((p) => p.package.registry === 'pypi')) {
    const found = spawnSync('sh', ['-c', `command -v ${preset.cli}`], { encoding: 'utf8' }).stdout.trim();
    if (found) check(preset, found, process.env, helpOf(found, ['--version'], process.env).trim().split('\n')[0] ?? '?');
    else console.log(`- ${preset.name}: skipped (${preset.package.name} is on PyPI; install it, e.g. \`${presetInstall(preset)}\`, and run this again)`);
  }
} finally {
  rmSync(prefix, { recursive: true, force: true });
}
if (missing.length) {
  console.error(`\nmissing flags:\n${missing.map((m) => `  ${m}`).join('\n')}`);
  process.exit(1);
}
console.log("\nevery flag the presets use is in its CLI's help");
