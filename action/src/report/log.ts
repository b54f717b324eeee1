// Always reports: the conclusion and summary to the log, and the whole result as the action
// output `result` when running as a GitHub Action.
import * as core from '@actions/core';
import type { StepResult } from '../../../core/contract/wire.ts';
import type { Reporter } from './reporter.ts';

export class LogReporter implements Reporter {
  readonly name = 'log';
  constructor(
    private readonly log: (line: string) => void = (l) => core.info(l),
    private readonly setOutput?: (name: string, value: string) => void,
  ) {}

  async report(result: StepResult): Promise<void> {
    const error = result.error ? ` [${result.error.code}] ${result.error.message}` : '';
    this.log(`conveyor: step ${result.step || '?'} attempt ${result.attempt}: ${result.conclusion}${error}`);
    this.setOutput?.('conclusion', result.conclusion);
    this.setOutput?.('result', JSON.stringify(result));
  }
}
