// Whether a review was independent of the code it judged: a different agent AND a different model
// family. Two versions or snapshots of one model are one family: they share blind spots. The
// families are those of the configured models and of every model the agents' CLIs reported using
// (the code step's attempts, the reviewer's run): a report can only find them the same family,
// never make up for a `model` left out.
//
// A model's family is its id lower-cased, without the provider prefix (everything up to the last
// `/`: `anthropic/claude-sonnet-4-5` and `bedrock/claude-sonnet-4-5` are the same model served by
// two providers), without an `@…` or `:…` pin, and without trailing date or version parts, removed
// one by one (`-20250929`, `-2024-05-01`, `-4-5`, `-1`, `-v2`, `-latest`, `-001`).
//   claude-sonnet-4-5-20250929 -> claude-sonnet      gpt-4o-2024-05-13 -> gpt-4o
//   gpt-5 -> gpt                                     gemini-1.5-pro-002 -> gemini-1.5-pro

/** One trailing part that is a version or a date, with its separator. */
const VERSION_PART = /[-_.](?:\d+|v\d+(?:\.\d+)*|\d{4}-\d{2}-\d{2}|latest)$/;

export function modelFamily(model: string): string {
  let id = model.trim().toLowerCase();
  id = id.slice(id.lastIndexOf('/') + 1);
  id = id.replace(/[@:].*$/, '');
  // A date with dashes goes whole, before its parts could be taken for three versions.
  for (let before = ''; before !== id;) {
    before = id;
    id = id.replace(/[-_]\d{4}-\d{2}-\d{2}$/, '').replace(VERSION_PART, '');
  }
  return id;
}

export interface Author {
  agent: string;
  /** The configured `model`. */
  model?: string | undefined;
  /** The models its CLI (or its usage file) reported using: they can make a review less independent, never more. */
  models?: readonly string[] | undefined;
}

export interface Independence {
  independent: boolean;
  /** Why, in words for the step summary. */
  reason: string;
}

export function judgeIndependence(coder: Author | undefined, reviewer: Author): Independence {
  if (!coder) return { independent: true, reason: 'no agent of this run wrote the code' };
  if (coder.agent === reviewer.agent) {
    return { independent: false, reason: `the reviewer is the same agent (\`${reviewer.agent}\`) that wrote the code` };
  }
  if (!reviewer.model || !coder.model) {
    const missing = !reviewer.model ? `reviewer \`${reviewer.agent}\`` : `coder \`${coder.agent}\``;
    return { independent: false, reason: `the ${missing} declares no \`model\`, so its model family cannot be told apart` };
  }
  const a = modelFamily(coder.model);
  const b = modelFamily(reviewer.model);
  if (a === b) {
    return {
      independent: false,
      reason: `coder \`${coder.agent}\` (${coder.model}) and reviewer \`${reviewer.agent}\` (${reviewer.model}) are the same model family \`${a}\``,
    };
  }
  // What ran, as reported, beside what was configured: a CLI may run another model than it was
  // given (a newer one, an "auto" choice), and then the configured names say nothing.
  const ran = (who: Author) => [who.model!, ...(who.models ?? [])];
  const reviewerFamilies = new Map(ran(reviewer).map((m) => [modelFamily(m), m]));
  for (const m of ran(coder)) {
    const same = reviewerFamilies.get(modelFamily(m));
    if (same === undefined) continue;
    const said = (who: Author, name: string) => (name === who.model ? `is configured with ${name}` : `reported using ${name}`);
    return {
      independent: false,
      reason: `coder \`${coder.agent}\` ${said(coder, m)} and reviewer \`${reviewer.agent}\` ${said(reviewer, same)}: the same model family \`${modelFamily(m)}\``,
    };
  }
  const reported = (coder.models?.length ?? 0) + (reviewer.models?.length ?? 0) > 0 ? ', configured and as reported' : '';
  return { independent: true, reason: `a different agent (\`${reviewer.agent}\` vs \`${coder.agent}\`) and model family (\`${b}\` vs \`${a}\`${reported})` };
}
