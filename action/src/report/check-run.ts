// The check run reporter: a step's result as the check run `conveyor / <step-id>`. It talks to
// GitHub through a CheckRunClient, which the GitHub mode provides; where no client is given
// (the embedded mode), chooseReporters leaves this reporter out.
import type { StepResult } from '../../../core/wire.ts';
import type { Reporter } from './reporter.ts';

export interface CheckRunOutput {
  name: string;
  conclusion: 'success' | 'failure' | 'neutral';
  title: string;
  /** Markdown; GitHub keeps at most 65,535 characters. */
  summary: string;
  /** Stable key of the attempt, so reporting twice updates one check run. */
  externalId: string;
}

export interface CheckRunClient {
  /** Creates or completes the check run of `externalId` with this outcome. */
  complete(check: CheckRunOutput): Promise<void>;
}

const MAX_SUMMARY = 65_000;

export function checkRunOutput(result: StepResult): CheckRunOutput {
  const title = result.error ? `${result.conclusion}: ${result.error.code}` : result.conclusion;
  const summary = result.summary.length > MAX_SUMMARY ? `${result.summary.slice(0, MAX_SUMMARY)}\n\n…(truncated)` : result.summary;
  return {
    name: `conveyor / ${result.stepId}`,
    conclusion: result.conclusion,
    title,
    summary,
    externalId: `${result.runId}:${result.stepId}:${result.attempt}:${result.epoch}`,
  };
}

export class CheckRunReporter implements Reporter {
  readonly name = 'check run';
  constructor(private readonly client: CheckRunClient) {}

  async report(result: StepResult): Promise<void> {
    await this.client.complete(checkRunOutput(result));
  }
}
