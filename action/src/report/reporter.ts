// Where a step's result goes. The entry chooses by environment: the result file in the embedded
// mode (CONVEYOR_RESULT_PATH), the check run on GitHub when a check-run client is available, and
// the log (plus the action output `result`) always, so a result is never silently dropped.
import type { StepResult } from '../../../core/contract/wire.ts';
import { CheckRunReporter, type CheckRunClient } from './check-run.ts';
import { FileReporter } from './file.ts';
import { LogReporter } from './log.ts';
import type { Logger } from '../../../lib/logger.ts';

export interface Reporter {
  readonly name: string;
  report(result: StepResult): Promise<void>;
}

export interface ReporterOptions {
  env: NodeJS.ProcessEnv;
  /** Creates the check-run client for GitHub's runners; absent where check runs are not reported. */
  checkRunClient?: (env: NodeJS.ProcessEnv) => CheckRunClient | undefined;
  log?: Logger;
  setOutput?: (name: string, value: string) => void;
}

export function chooseReporters(options: ReporterOptions): Reporter[] {
  const reporters: Reporter[] = [new LogReporter(options.log, options.setOutput)];
  if (options.env.CONVEYOR_RESULT_PATH) reporters.push(new FileReporter(options.env.CONVEYOR_RESULT_PATH));
  const client = options.checkRunClient?.(options.env);
  if (client) reporters.push(new CheckRunReporter(client));
  return reporters;
}

/** Hands the result to every reporter; one failing does not stop the others. */
export async function reportAll(reporters: readonly Reporter[], result: StepResult): Promise<Error[]> {
  const settled = await Promise.allSettled(reporters.map((r) => r.report(result)));
  return settled.flatMap((s, i) => (s.status === 'rejected' ? [new Error(`reporter ${reporters[i]?.name}: ${(s.reason as Error)?.message ?? s.reason}`)] : []));
}
