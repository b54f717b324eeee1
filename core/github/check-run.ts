// How a step attempt appears as a GitHub check run, shared by the app (which creates the check run
// and reads results back) and the action (which reads its check run and completes it): the names
// and the machine-readable result inside output.text. The external id that names the attempt is
// its key (core/contract/attempt-ref.ts).
import { describeIssues, stepResultSchema, type StepResult } from '../contract/wire.ts';
import { CHECK_OUTPUT_MAX } from './limits.ts';

export const STEP_CHECK_PREFIX = 'conveyor / ';
/** The summary check run of a whole run. */
export const SUMMARY_CHECK_NAME = 'conveyor';

export function stepCheckName(step: string): string {
  return `${STEP_CHECK_PREFIX}${step}`;
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
