// `conveyor fix RUN --message TEXT`: what `/conveyor fix` and a review requesting changes are on
// GitHub. The code step repairs with the text as soon as no attempt is under way, and every step
// after it runs again; approvals given before are stale.
import type { Command } from 'commander';
import { UsageError } from '../../core/errors.ts';
import { DEFAULT_STATE } from '../embedded.ts';
import { decide, readBody } from '../drive.ts';
import { action } from '../program.ts';

interface FixOptions {
  message?: string;
  messageFile?: string;
  as: string;
  state: string;
}

export function register(program: Command): void {
  program
    .command('fix')
    .description('Send the coder back to change something (the code step repairs with your text), then run the steps after it again')
    .argument('<run>', 'run id')
    .option('-m, --message <text>', 'what to change')
    .option('-F, --message-file <file>', 'file holding what to change (Markdown, several lines)')
    .option('--as <name>', 'who asks', 'conveyor-cli')
    .option('--state <db>', 'state database', DEFAULT_STATE)
    .action(
      action((runId: string, o: FixOptions) => {
        // Checked before the run is touched: a fix without words would send the coder nothing to do.
        if ((o.message === undefined) === (o.messageFile === undefined))
          throw new UsageError('give what to change with either --message TEXT or --message-file FILE');
        const text = (o.message ?? readBody(o.messageFile, '--message-file')).trim();
        if (!text)
          throw new UsageError(`${o.message !== undefined ? '--message' : `--message-file ${o.messageFile}`} is empty: say what the coder should change`);
        const at = new Date().toISOString();
        return decide({
          statePath: o.state,
          runId,
          event: () => ({ type: 'feedback', at, id: `cli:${at}`, by: o.as, source: 'command-line', text }),
        });
      }),
    );
}
