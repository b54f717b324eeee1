// Always reports: the conclusion and summary to the log, and the whole result as the action
// output `result` when running as a GitHub Action.
import { refOf } from '../../../core/contract/attempt-ref.ts';
import type { StepResult } from '../../../core/contract/wire.ts';
import { attemptFields, type Logger } from '../../../lib/logger.ts';
import { actionLogger, coreSink } from '../log.ts';
import type { Reporter } from './reporter.ts';

export class LogReporter implements Reporter {
  readonly name = 'log';
  constructor(
    private readonly log: Logger = actionLogger(coreSink(process.env)),
    private readonly setOutput?: (name: string, value: string) => void,
  ) {}

  async report(result: StepResult): Promise<void> {
    const error = result.error ? ` [${result.error.code}] ${result.error.message}` : '';
    // The line a reader looks for first: which attempt, and how it ended.
    const line = `step ${result.step || '?'} attempt ${result.attempt}: ${result.conclusion}${error}`;
    this.log[result.conclusion === 'failure' ? 'error' : 'info'](line, attemptFields(refOf(result)));
    this.setOutput?.('conclusion', result.conclusion);
    this.setOutput?.('result', JSON.stringify(result));
  }
}
