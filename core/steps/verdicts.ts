// Finding a reviewer's verdict in what a CLI printed, for the presets whose CLI does not write
// $CONVEYOR_RESULT_FILE itself (core/config/presets.ts, VerdictSource). What is found here is only
// a candidate: the review step parses it like any verdict, and rejects what is not one.

/**
 * The `structured_output` of a JSON event line `{"type": "result", ...}` (Claude Code's last event
 * with --json-schema), or undefined when the line is not one.
 */
export function structuredOutputOf(line: string): unknown {
  const text = line.trim();
  if (!text.startsWith('{')) return undefined;
  try {
    const event = JSON.parse(text) as Record<string, unknown>;
    return event && event.type === 'result' && event.structured_output !== undefined ? event.structured_output : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The verdict an agent gave in its reply: the last ```json block that parses as an object with a
 * `verdict`, else the last line that is such an object by itself.
 */
export function replyVerdictOf(output: string): unknown {
  const blocks = [...output.matchAll(/```(?:json)?[^\S\n]*\n([\s\S]*?)\n[^\S\n]*```/g)].map((m) => m[1]!);
  const lines = output.split('\n').filter((l) => l.trim().startsWith('{'));
  for (const candidate of [...blocks.reverse(), ...lines.reverse()]) {
    try {
      const value = JSON.parse(candidate) as unknown;
      if (value && typeof value === 'object' && 'verdict' in value) return value;
    } catch {
      // Not JSON: keep looking.
    }
  }
  return undefined;
}
