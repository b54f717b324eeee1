// The action's logger: one line per message on the step's log, `conveyor: message (fields)`, the
// prefix added here alone, the whole line scrubbed of every secret the step knows (its fields
// too), and written through @actions/core at its level.
import * as core from '@actions/core';
import { lineLogger, type Logger, type LogLevel } from '../../lib/logger.ts';

/** Where a finished line goes: GitHub's step log by default, a list in tests. */
export type LogSink = (line: string, level: LogLevel) => void;

/**
 * @actions/core at the line's level on GitHub, where a warning or an error is also an annotation
 * of the workflow run; elsewhere (the embedded mode's output.log) every line as it is, since the
 * workflow commands of a warning mean nothing there.
 */
export function coreSink(env: NodeJS.ProcessEnv): LogSink {
  const github = env.GITHUB_ACTIONS === 'true';
  return (line, level) => (!github || level === 'info' ? core.info(line) : level === 'warn' ? core.warning(line) : core.error(line));
}

/** The action's logger over a sink; `scrub` sees each whole line before the sink does. */
export function actionLogger(sink: LogSink, scrub: (text: string) => string = (t) => t): Logger {
  return lineLogger((level, line) => sink(scrub(`conveyor: ${line}`), level));
}
