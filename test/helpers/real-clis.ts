// The real coding CLIs for the tests that run them (test/e2e/real-cli): each preset's npm package at
// the version its preset was checked with (core/config/presets.ts), installed once into a cache
// folder outside the project, `$CONVEYOR_CLI_CACHE/<pkg>@<version>` (default
// /var/tmp/conveyor-cli-cache). A test that finds its CLI missing installs it (from the npm registry,
// which CI reaches; `.ci/run` stays the README's test command), and one that cannot fails, saying
// why: these tests are never skipped. scripts/install-test-clis.ts fills the cache ahead, e.g.
// before working offline.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { installDir } from '../../action/src/sandbox.ts';
import { PRESETS, type PresetName } from '../../core/config/presets.ts';

export const CLI_CACHE = process.env.CONVEYOR_CLI_CACHE || '/var/tmp/conveyor-cli-cache';

export type NpmPreset = Exclude<PresetName, 'aider'>;
export const NPM_PRESETS: NpmPreset[] = ['claude-code', 'codex', 'gemini', 'copilot'];

export interface InstalledCli {
  preset: NpmPreset;
  spec: string;
  version: string;
  /** The folder holding the executable under the preset's CLI name: put it on PATH. */
  bin: string;
  exe: string;
}

export function cliSpec(preset: NpmPreset): string {
  const p = PRESETS[preset];
  return `${p.package.name}@${p.version}`;
}

/** Installs (once) and returns the preset's pinned CLI; throws, naming the command and its output, when npm cannot. */
export function realCli(preset: NpmPreset): InstalledCli {
  const p = PRESETS[preset];
  const spec = cliSpec(preset);
  const folder = join(CLI_CACHE, spec.replace('/', '+'));
  const bin = join(folder, 'node_modules', '.bin');
  const exe = join(bin, p.cli);
  if (!existsSync(exe)) {
    // Into a scratch folder renamed into place: a test killed mid-install leaves no half a CLI.
    mkdirSync(CLI_CACHE, { recursive: true });
    const scratch = `${folder}.partial-${process.pid}`;
    rmSync(scratch, { recursive: true, force: true });
    mkdirSync(scratch, { recursive: true });
    try {
      execFileSync('npm', ['install', '--prefix', scratch, '--no-audit', '--no-fund', '--loglevel=error', spec], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
        timeout: 600_000,
      });
    } catch (e) {
      rmSync(scratch, { recursive: true, force: true });
      const err = e as { stderr?: string; message: string };
      throw new Error(
        `could not install ${spec} for the real-CLI tests (npm install --prefix ${scratch} ${spec}): ${(err.stderr || err.message).trim().slice(-2000)}\n` +
          'These tests need the npm registry once; `npx tsx scripts/install-test-clis.ts` fills the cache ahead (e.g. before working offline).',
      );
    }
    if (!existsSync(join(scratch, 'node_modules', '.bin', p.cli))) throw new Error(`${spec} installed no \`${p.cli}\` executable in ${scratch}`);
    rmSync(folder, { recursive: true, force: true });
    renameSync(scratch, folder);
  }
  return { preset, spec, version: p.version, bin, exe };
}

/**
 * Puts the installed CLI into the install folder its preset's setup installs into under `cacheDir`
 * (CONVEYOR_CACHE_DIR), as GitHub's cache of that folder restores it: the setup looks there (never
 * on PATH), finds it and installs nothing. Returns `cacheDir`.
 */
export function restoreCli(installed: InstalledCli, cacheDir: string): string {
  const folder = join(
    installDir({ CONVEYOR_CACHE_DIR: cacheDir }, { repos: [] }, { name: installed.preset, preset: installed.preset, version: installed.version }),
    'bin',
  );
  mkdirSync(folder, { recursive: true });
  const link = join(folder, PRESETS[installed.preset].cli);
  if (!existsSync(link)) symlinkSync(installed.exe, link);
  return cacheDir;
}
