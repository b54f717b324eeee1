// Fitting a step payload into GitHub's workflow_dispatch inputs (65,535 characters for all inputs
// together), once, where the reducer builds it: what it fits is what the action gets, and what
// its attempt's receipt is sealed against. The measure is the dispatch's inputs as sent (the
// workflow's three, dispatchInputs), with room for what the dispatcher adds to the payload on the
// way out (routingRoom), so the dispatcher sends it without measuring again. What is cut is what
// the step can do without: the issue body first (the agent can be pointed at the issue itself),
// then a repair's findings, then the tails of environment outputs. Each cut leaves a note saying
// what was cut and where to read it whole.
import type { StepPayload } from './wire.ts';

/** GitHub's limit on the inputs of one workflow_dispatch, all inputs together. */
export const DISPATCH_INPUTS_LIMIT = 65_535;

/** A check run id as long as one can be (GitHub's ids are integers JavaScript holds exactly). */
const LONGEST_CHECK_RUN_ID = Number.MAX_SAFE_INTEGER;
/** An ISO time as long as one can be (the last one JavaScript has). */
const LONGEST_TIME = new Date(8.64e15).toISOString();

/**
 * The inputs of one dispatch of the workflow (workflows/conveyor.yml declares them): the payload's
 * JSON `text`, the step's label for the workflow run's name, and the check run it reports to.
 */
export function dispatchInputs(payload: Pick<StepPayload, 'step' | 'attempt' | 'mode'>, text: string, checkRunId: number): Record<string, string> {
  const step = `${payload.step.id} · attempt ${payload.attempt}${payload.mode === 'run' ? '' : ` (${payload.mode})`}`;
  return { payload: text, step, 'check-run': String(checkRunId) };
}

/** Characters the inputs take as sent: keys and values as the dispatch's JSON body writes them (its quotes, escapes, commas). */
export function inputsLength(inputs: Record<string, string>): number {
  return JSON.stringify(inputs).length;
}

/**
 * Characters of the inputs the dispatcher's routing takes at most: it adds to each payload until
 * when its attempt stays current (`currentUntil`), which is not an input of the step: receipts leave it out.
 */
function routingRoom(): number {
  return sentLength(`,"currentUntil":${JSON.stringify(LONGEST_TIME)}`);
}

/** What a run's payloads may take of `inputsLimit` (a run's `payloadLimit`): all of it but the routing's room. */
export function payloadLimitOf(inputsLimit: number): number {
  return inputsLimit - routingRoom();
}

export interface FittedPayload {
  text: string;
  payload: StepPayload;
  /** What was shortened, in words, empty when nothing was. */
  cuts: string[];
}

/** Shortens `text` so its JSON form loses at least `over` characters, keeping a note at its end. */
function shorten(text: string, over: number, note: string): string {
  const encoded = JSON.stringify(text).length - 2;
  // Escapes (newlines, quotes, non-ASCII kept as is) make a JSON character worth at most 6 of text.
  const ratio = Math.max(1, encoded / Math.max(1, text.length));
  const keep = Math.max(0, text.length - Math.ceil((over + note.length + 16) * ratio));
  return `${text.slice(0, keep)}\n\n${note}`;
}

/**
 * The characters the payload takes as sent: its JSON text travels as a string inside the
 * dispatch's JSON body, so every quote and backslash in it is escaped once more.
 */
export function sentLength(text: string): number {
  return JSON.stringify(text).length - 2;
}

/**
 * The payload cut to fit `limit` (the run's `payloadLimit`, payloadLimitOf): its dispatch's inputs,
 * whatever the check run's id, take at most that many characters.
 */
export function fitPayload(payload: StepPayload, limit: number): FittedPayload {
  let p = payload;
  // The payload's JSON, made again only after a cut (most payloads fit as they are).
  let text = JSON.stringify(p);
  const size = () => inputsLength(dispatchInputs(p, text, LONGEST_CHECK_RUN_ID));
  const cuts: string[] = [];
  for (let round = 0; round < 8 && size() > limit; round++) {
    const over = size() - limit;
    if (p.issue.body.length > 0 && !cuts.includes('issue body')) {
      const where = p.issue.url ? ` (read it whole at ${p.issue.url})` : ` (read it whole in ${p.issue.repo}#${p.issue.number})`;
      p = {
        ...p,
        issue: { ...p.issue, body: shorten(p.issue.body, over, `> [Conveyor] The issue body was cut to fit GitHub's workflow input limit${where}.`) },
      };
      cuts.push('issue body');
    } else if (p.findings && !cuts.includes('findings')) {
      p = {
        ...p,
        findings: shorten(
          p.findings,
          over,
          "> [Conveyor] The findings were cut to fit GitHub's workflow input limit; the full list is in the previous attempt's check run.",
        ),
      };
      cuts.push('findings');
    } else if (p.environments.some((e) => e.outputTail) && !cuts.includes('environment output')) {
      p = { ...p, environments: p.environments.map(({ outputTail: _tail, ...e }) => e) };
      cuts.push('environment output');
    } else if (cuts.includes('issue body') && p.issue.body.length > 0) {
      // A body full of escapes can need a second cut.
      p = { ...p, issue: { ...p.issue, body: shorten(p.issue.body, over, "> [Conveyor] The issue body was cut to fit GitHub's workflow input limit.") } };
    } else if (p.findings && p.findings.length > 0) {
      p = { ...p, findings: shorten(p.findings, over, '> [Conveyor] The findings were cut.') };
    } else {
      break;
    }
    text = JSON.stringify(p);
  }
  if (size() > limit) {
    throw new Error(
      `the step payload of ${p.runId} step ${p.step.id} takes ${size()} characters of the workflow inputs as sent even without the issue body and findings, over the ${limit} it may take of GitHub's limit; the plan itself (agents, services) is too large to dispatch`,
    );
  }
  return { text, payload: p, cuts };
}
