// `conveyor demo`: builds a small demo organisation and runs a whole pipeline on it, offline.
import { mkdtempSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { buildDemo, demoParent } from '../demo-org.ts';
import { startRun } from '../drive.ts';
import { openStore } from '../embedded.ts';
import { action } from '../program.ts';
import { say } from '../../lib/terminal.ts';

export function register(program: Command): void {
  program
    .command('demo')
    .description('Build a demo organisation (two services, scripted agents) and run a full pipeline on it')
    .option('--dir <dir>', 'where to build it (default: a new folder in the temporary folder, /var/tmp where that is /tmp)')
    .option('--keep-envs', 'keep the preview servers running after the run, to open them in a browser', false)
    .option('--json', 'print the final state as JSON', false)
    .action(
      action(async (o: { dir?: string; keepEnvs: boolean; json: boolean }) => {
        // Not under /tmp by default: every sandboxed command has its own there (demoParent).
        const dir = resolve(o.dir ?? mkdtempSync(join(demoParent(), 'conveyor-demo-')));
        const demo = await buildDemo(dir);
        const statePath = join(demo.dir, 'state.db');
        say(`Demo organisation in ${demo.dir}`);
        say(`  repositories: ${demo.repos.map((r) => `${r} (${join(demo.remotes, `${r}.git`)})`).join(', ')}`);
        say(`  configuration: ${demo.configPath}`);
        say(`  issue: ${demo.issueTitle}`);
        say('');
        const code = await startRun({
          configPath: demo.configPath,
          remotes: demo.remotes,
          title: demo.issueTitle,
          body: readFileSync(demo.issueBodyPath, 'utf8'),
          pipeline: 'default',
          statePath,
          approve: true,
          keepEnvs: o.keepEnvs,
          json: o.json,
        });
        if (!o.json) {
          const bin = fileURLToPath(new URL('../../bin/conveyor.js', import.meta.url));
          say('');
          say('Look around:');
          for (const repo of demo.repos) {
            say(`  git -C ${join(demo.remotes, `${repo}.git`)} log --oneline --all --graph`);
          }
          const runId = await demoRunId(statePath);
          say(`  node ${bin} status --state ${statePath}`);
          say(`  node ${bin} pr ${runId} --state ${statePath}   # each PR's body, reviews and diff`);
          say(`  ls ${join(demo.dir, 'attempts')}   # each step attempt's payload, result and log`);
          if (o.keepEnvs) say(`  node ${bin} teardown ${runId} --state ${statePath}   # stops the previews`);
          else say('  (run `conveyor demo --keep-envs` to keep the previews up and open the storefront)');
        }
        return code;
      }),
    );
}

/** The demo's state holds the one run it just made. */
async function demoRunId(statePath: string): Promise<string> {
  const store = await openStore(statePath);
  try {
    return (await store.list()).at(-1)?.id ?? 'RUN';
  } finally {
    await store.close();
  }
}
