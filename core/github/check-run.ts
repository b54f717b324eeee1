// How a step attempt appears as a GitHub check run, shared by the app (which creates the check run
// and reads results back) and the action (which reads its check run and completes it): the names
// and the machine-readable result inside output.text. The external id that names the attempt is
// its key (core/contract/attempt-ref.ts).
import { describeIssues, stepResultSchema, type StepResult } from '../contract/wire.ts';
import { CHECK_OUTPUT_MAX } from './limits.ts';
import type { StepState } from '../run/types.ts';

export const STEP_CHECK_PREFIX = 'conveyor / ';
/** The summary check run of a whole run. */
export const SUMMARY_CHECK_NAME = 'conveyor';

/**
 * The check run of a step attempt, as the Checks tab lists it: `conveyor / test`; a repair is named
 * as one, `conveyor / test (repair 1)`, so its green tick never reads as the gate passing; a
 * teardown `conveyor / preview (teardown)`. The attempt is found by its external id, never by this
 * name (the dispatcher looks for a check run it may have made by both, computed the same way).
 */
export function stepCheckName(step: string, attempt: { mode?: string; repair?: number } = {}): string {
  const what = attempt.mode === 'repair' ? ` (repair${attempt.repair ? ` ${attempt.repair}` : ''})` : attempt.mode === 'teardown' ? ' (teardown)' : '';
  return `${STEP_CHECK_PREFIX}${step}${what}`;
}

/**
 * Which repair of its step attempt `attempt` is (1 for the first), counted over the step's records
 * in order (a lost attempt dispatched again is the same repair); undefined when it is no repair.
 */
export function repairNumber(step: Pick<StepState, 'attempts'> | undefined, attempt: number): number | undefined {
  const repairs = [...new Set((step?.attempts ?? []).filter((a) => a.mode === 'repair').map((a) => a.attempt))].sort((a, b) => a - b);
  const i = repairs.indexOf(attempt);
  return i < 0 ? undefined : i + 1;
}

/**
 * How an attempt's check run ends: its conclusion and title. A run attempt's say how the step went.
 * A repair is no verdict on the work: one that pushed a fix ends `neutral`, saying what it pushed and
 * that the step runs again on it (a green tick would read as the gate passing); one that failed
 * ends `failure`.
 */
export function attemptOutcome(result: StepResult): { conclusion: StepResult['conclusion']; title: string } {
  const failed = result.error ? `${result.conclusion}: ${result.error.code}` : result.conclusion;
  if (result.mode !== 'repair') return { conclusion: result.conclusion, title: failed };
  if (result.conclusion === 'failure') return { conclusion: 'failure', title: `repair failed${result.error ? `: ${result.error.code}` : ''}` };
  // The code step's `neutral` is a repair that changed nothing (action/src/steps/code.ts).
  if (result.conclusion === 'neutral') return { conclusion: 'neutral', title: 'repair changed nothing' };
  return { conclusion: 'neutral', title: `repair pushed a fix: ${result.step} runs again on it (no verdict yet)` };
}

const MARKER = 'conveyor:result:v1';
/** The summary of a result too long for output.text: output.summary holds it. */
const SUMMARY_ELSEWHERE = '(see the check run summary)';

/**
 * The result as a hidden HTML comment: invisible in the Checks tab, exact for the app. `<` and `>`
 * are escaped inside the JSON (JSON.parse restores them), so no text in the result can close the
 * comment. Too long for GitHub's limit, the summary (kept in output.summary anyway) and then the
 * findings are shortened.
 */
export function renderResultText(result: StepResult, limit = CHECK_OUTPUT_MAX - 200): string {
  const encode = (r: StepResult) => `<!-- ${MARKER} ${JSON.stringify(r).replace(/</g, '\\u003c').replace(/>/g, '\\u003e')} -->`;
  const text = encode(result);
  if (text.length <= limit) return text;
  const lean: StepResult = { ...result, summary: SUMMARY_ELSEWHERE };
  const leanText = encode(lean);
  if (leanText.length <= limit || lean.findings === undefined) return leanText;
  const over = leanText.length - limit;
  return encode({ ...lean, findings: `${lean.findings.slice(0, Math.max(0, lean.findings.length - over - 100))}\n…(cut to fit GitHub's check run limit)` });
}

export type ParsedResult = { ok: true; result: StepResult } | { ok: false; message: string };

/** Reads the result back from output.text; `summary` (output.summary) fills a shortened summary in. */
export function parseResultText(text: string | null | undefined, summary?: string | null): ParsedResult {
  if (!text) return { ok: false, message: 'the check run has no output text' };
  const start = text.indexOf(`<!-- ${MARKER} `);
  if (start < 0) return { ok: false, message: 'the check run output holds no Conveyor result' };
  const end = text.indexOf(' -->', start);
  if (end < 0) return { ok: false, message: 'the Conveyor result in the check run output is cut off' };
  let raw: unknown;
  try {
    raw = JSON.parse(text.slice(start + MARKER.length + 6, end));
  } catch (e) {
    return { ok: false, message: `the Conveyor result in the check run output is not JSON: ${(e as Error).message}` };
  }
  const parsed = stepResultSchema.safeParse(raw);
  if (!parsed.success) return { ok: false, message: `the Conveyor result does not match the wire contract: ${describeIssues(parsed.error)}` };
  const result = parsed.data;
  if (result.summary === SUMMARY_ELSEWHERE && summary) result.summary = summary;
  return { ok: true, result };
}

/** A check run's status and conclusion, as GitHub has it or as Conveyor is about to write it. */
export interface CheckState {
  status: string;
  conclusion?: string | null | undefined;
}

/**
 * Whether GitHub lets a check run go from `from` to `to` by an update: once completed, a check
 * run's status and conclusion never change again (its output may), so a run that goes on after a
 * completed summary, or an approval decided after its `action_required`, needs a new check run of
 * the same name on the same head (GitHub shows the newest of a name).
 */
export function updatable(from: CheckState, to: CheckState): boolean {
  if (from.status !== 'completed') return true;
  return to.status === 'completed' && (to.conclusion ?? null) === (from.conclusion ?? null);
}
