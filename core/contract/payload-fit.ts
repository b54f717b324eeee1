// Fitting a step payload into GitHub's workflow_dispatch inputs (65,535 characters for all inputs
// together). What is cut is what the step can do without: the issue body first (the agent can be
// pointed at the issue itself), then a repair's findings, then the tails of environment outputs.
// Each cut leaves a note saying what was cut and where to read it whole.
import type { StepPayload } from './wire.ts';

/** GitHub's limit on the inputs of one workflow_dispatch, all inputs together. */
export const DISPATCH_INPUTS_LIMIT = 65_535;

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

export function fitPayload(payload: StepPayload, limit: number): FittedPayload {
  let p = payload;
  // The payload's JSON, made again only after a cut (most payloads fit as they are).
  let text = JSON.stringify(p);
  const cuts: string[] = [];
  for (let round = 0; round < 8 && sentLength(text) > limit; round++) {
    const over = sentLength(text) - limit;
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
  if (sentLength(text) > limit) {
    throw new Error(
      `the step payload of ${p.runId} step ${p.step.id} is ${sentLength(text)} characters as sent even without the issue body and findings, over GitHub's limit of ${limit}; the plan itself (agents, services) is too large to dispatch`,
    );
  }
  return { text, payload: p, cuts };
}
