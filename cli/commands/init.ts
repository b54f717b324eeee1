// `conveyor init`: writes the starter configuration and the step-runner workflow into a
// repository. It never overwrites a file a person may have edited unless told to with --force.
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Command } from 'commander';
import { UsageError } from '../../core/errors.ts';
import { action, EXIT } from '../program.ts';
import { DEFAULT_CONFIG_PATH } from '../config-file.ts';
import { say, sayRaw, warn } from '../../lib/terminal.ts';

/** What init writes: the path inside the repository, and the template it copies. */
export const INIT_FILES: ReadonlyArray<{ path: string; template: URL }> = [
  { path: DEFAULT_CONFIG_PATH, template: new URL('../../examples/starter/conveyor.yml', import.meta.url) },
  { path: '.github/workflows/conveyor.yml', template: new URL('../../workflows/conveyor.yml', import.meta.url) },
];

interface InitOptions {
  dir: string;
  force?: boolean;
}

export function register(program: Command): void {
  program
    .command('init')
    .description(`Write a commented starter ${DEFAULT_CONFIG_PATH} and the workflow .github/workflows/conveyor.yml.`)
    .option('-d, --dir <dir>', 'root of the repository to write into', '.')
    .option('-f, --force', 'overwrite files that already exist')
    .action(
      action((opts: InitOptions) => {
        let isDir = false;
        try {
          isDir = statSync(opts.dir).isDirectory();
        } catch {
          // reported below
        }
        if (!isDir) throw new UsageError(`--dir ${opts.dir} is not an existing folder; give the root of a repository`);

        const targets = INIT_FILES.map((f) => ({ ...f, full: join(opts.dir, f.path) }));
        const existing = targets.filter((t) => existsSync(t.full));
        if (existing.length && !opts.force) {
          for (const t of existing) {
            warn(`${t.full} already exists; nothing was written. Use --force to overwrite it.`);
          }
          return EXIT.failed;
        }
        for (const t of targets) {
          mkdirSync(dirname(t.full), { recursive: true });
          writeFileSync(t.full, readFileSync(t.template, 'utf8'));
          say(`✓ wrote ${t.full}${existing.includes(t) ? ' (overwritten)' : ''}`);
        }
        const config = targets[0]!.full;
        sayRaw(
          [
            '',
            'Next:',
            `  1. edit ${config}: your agents, services and steps (\`conveyor validate --config ${config}\` checks it)`,
            '  2. commit both files to the default branch (Conveyor reads them only from there); the workflow needs no key or token:',
            "     the action trades the runner's OIDC token at the Conveyor app for a token of each step",
            "  3. set the repository (or organisation) variable CONVEYOR_PUBLIC_URL to the app's public https URL",
            '     (`gh variable set CONVEYOR_PUBLIC_URL --body https://conveyor.example.com`): the OIDC token goes there and nowhere else',
            '  4. install the Conveyor GitHub App on the repositories involved, and label an issue `conveyor`',
            '',
          ].join('\n'),
        );
        return EXIT.ok;
      }),
    );
}
