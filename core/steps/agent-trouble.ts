// Failures of an agent run that are not the agent's work, named for what they are:
// - a host the sandbox refuses (`agent-network-refused`): a CLI whose model API is not allowed
//   retries it for many minutes (Codex and Gemini CLI print retry lines, so the stall guard never
//   fires), so the run is stopped as soon as the refused host is its model's API, or once refusals
//   have gone on for a while with no other traffic at all;
// - its model's vendor unavailable (`agent-vendor-unavailable`): answers of 429, 529 or a 5xx as
//   the key forwarder saw them, or the CLI's last JSON error event saying it was overloaded or rate
//   limited, or that its answer broke off. The action runs the agent again after a backoff, a
//   bounded number of times, within the same attempt (no repair is spent), then fails with what
//   the vendor said.
// Pure: the caller feeds events with their times, and asks.
import { hostAllowed } from '../hosts.ts';

/** A host the agent was refused, and why that stops it. */
export interface Refusal {
  host: string;
  port: number;
  /** How often it was refused in this run. */
  count: number;
  /** The host is the agent's model API (its preset's or its endpoint's): nothing works without it. */
  modelHost: boolean;
}

/** How long refusals with no other traffic stop an agent, in minutes of the step (tests shrink a minute). */
export const REFUSAL_WINDOW_MINUTES = 0.5;
/** Refusals in that window before they stop it: one refusal of a tool's host is no pattern. */
const REFUSALS_TO_STOP = 3;

/** Watches what the sandbox's proxy refused and let through during one agent run. */
export class RefusalWatch {
  private readonly counts = new Map<string, Refusal>();
  /** Refusals since the last traffic that went through, with their times. */
  private since: Array<{ key: string; at: number }> = [];
  private stopped: Refusal | undefined;

  constructor(private readonly options: { modelHosts: readonly string[]; windowMs: number }) {}

  refused(host: string, port: number, at: number): void {
    const key = `${host}:${port}`;
    const entry = this.counts.get(key) ?? { host, port, count: 0, modelHost: hostAllowed(host, this.options.modelHosts) };
    entry.count++;
    this.counts.set(key, entry);
    this.since.push({ key, at });
    if (entry.modelHost) this.stopped ??= { ...entry };
  }

  /** A connection or request that went through (the proxy's, the key forwarder's): the agent is getting on with its work. */
  traffic(): void {
    this.since = [];
  }

  /** The refusal that stops the agent at `at`, if one does. */
  check(at: number): Refusal | undefined {
    if (this.stopped) return this.stopped;
    const first = this.since[0];
    if (!first || this.since.length < REFUSALS_TO_STOP || at - first.at < this.options.windowMs) return undefined;
    // The host refused most since the traffic stopped: the one it keeps retrying.
    const tally = new Map<string, number>();
    for (const r of this.since) tally.set(r.key, (tally.get(r.key) ?? 0) + 1);
    const [key] = [...tally].sort((a, b) => b[1] - a[1])[0]!;
    this.stopped = { ...this.counts.get(key)! };
    return this.stopped;
  }
}

/** Whether a status the vendor answered says it is unavailable for now (rate limited, overloaded, failing), which a later try may not meet. */
export function vendorUnavailableStatus(status: number): boolean {
  // 501 and 505 say the request cannot ever be served: no retry answers them.
  return status === 429 || (status >= 500 && status <= 599 && status !== 501 && status !== 505);
}

/** What the vendor said when it was unavailable: its status (as the key forwarder saw it) and its words. */
export interface VendorTrouble {
  status?: number;
  said: string;
}

// "stream disconnected before completion" is Codex's for an answer that broke off: a vendor whose
// stream stalls meets its idle timeout (5 minutes) and its "Reconnecting…" retries, which print, so
// the stall guard never sees silence; after half an hour it fails with these words (its 0.171.0).
const TROUBLE_WORDS =
  /\b(?:429|529|500|502|503|504)\b|overloaded|rate[ _-]?limit|too many requests|service unavailable|bad gateway|gateway time-?out|internal server error|resource(?:[ _]?| has been )exhausted|\bunavailable\b|stream disconnected before completion/i;

/** A short text of what an error answer or event said: its JSON error message where it has one. */
function vendorWords(body: string, limit = 300): string {
  let text = body.trim();
  try {
    const parsed: unknown = JSON.parse(text);
    const message = messageOf(parsed);
    if (message) text = message;
  } catch {
    // not JSON: its text as it is
  }
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length > limit ? `${oneLine.slice(0, limit - 1)}…` : oneLine;
}

function messageOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (!value || typeof value !== 'object') return undefined;
  const o = value as Record<string, unknown>;
  for (const k of ['error', 'message', 'result']) {
    const m = messageOf(o[k]);
    if (m) return m;
  }
  return undefined;
}

/**
 * A CLI's JSON error event (Claude Code's `result` with `is_error`, Codex's `error` and
 * `turn.failed`, Gemini CLI's `error` and its `result` with `status: error`, Copilot CLI's
 * `session.error` with its `data.statusCode`): its words, and the status it names when it names
 * one the vendor answers when unavailable. Undefined for any other line, a transcript of the
 * agent's own tools included.
 */
function errorEvent(line: string): { said: string; status?: number } | undefined {
  const text = line.trim();
  if (!text.startsWith('{')) return undefined;
  let event: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(text);
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined;
    event = parsed as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const type = event.type;
  // Copilot CLI's, once its own retries are spent: the status it last got, and its words, under `data`.
  const copilot = type === 'session.error' && event.data && typeof event.data === 'object' ? (event.data as Record<string, unknown>) : undefined;
  const isError =
    copilot !== undefined ||
    type === 'error' ||
    type === 'turn.failed' ||
    (type === 'result' && (event.is_error === true || event.status === 'error' || (typeof event.subtype === 'string' && event.subtype.startsWith('error'))));
  if (!isError) return undefined;
  const said = messageOf(copilot?.message) ?? messageOf(event.error) ?? messageOf(event.message) ?? messageOf(event.result) ?? '';
  const coded = typeof copilot?.statusCode === 'number' && vendorUnavailableStatus(copilot.statusCode) ? copilot.statusCode : undefined;
  return { said, ...(coded !== undefined ? { status: coded } : {}) };
}

function troubleOf(event: { said: string; status?: number }): VendorTrouble | undefined {
  if (event.status === undefined && !TROUBLE_WORDS.test(event.said)) return undefined;
  const found = /\b(429|529|50[0-4])\b/.exec(event.said)?.[1];
  const status = event.status ?? (found !== undefined ? Number(found) : undefined);
  return { ...(status !== undefined ? { status } : {}), said: vendorWords(event.said) || `HTTP ${status}` };
}

/** The trouble a CLI's error event reports, when its status or words say the vendor was overloaded, rate limited or broke off its answer. */
export function vendorTroubleOfLine(line: string): VendorTrouble | undefined {
  const event = errorEvent(line);
  return event === undefined ? undefined : troubleOf(event);
}

/** Watches the model's answers (as the key forwarder saw them) and the CLI's error events during one agent run. */
export class VendorWatch {
  private fromApi: VendorTrouble | undefined;
  private fromCli: VendorTrouble | undefined;

  answered(status: number, body: string): void {
    if (vendorUnavailableStatus(status)) this.fromApi = { status, said: vendorWords(body) || `HTTP ${status}` };
    // A later answer that went well: whatever came before, the CLI got past it.
    else if (status < 400) this.fromApi = undefined;
  }

  line(line: string): void {
    // The CLI's last error event says why it failed: a "Reconnecting…" it got past is not the reason for a later error of its own.
    const event = errorEvent(line);
    if (event !== undefined) this.fromCli = troubleOf(event);
  }

  /** What made the run fail, when it failed because its vendor was unavailable: the API's last answer first, else what the CLI said. */
  trouble(): VendorTrouble | undefined {
    return this.fromApi ?? this.fromCli;
  }
}

/** Minutes before the retry after the `n`th failed run (0-based): 0.5, 1, 2, then 2. */
export function vendorBackoffMinutes(n: number): number {
  return Math.min(2, 0.5 * 2 ** n);
}

/**
 * The step's error for a run stopped because the sandbox refused a host. `needsProvider`: the
 * agent is Copilot CLI signed in to GitHub, which takes an `endpoint` only in its
 * bring-your-own-key mode (`provider`), so that is what the fix names.
 */
export function networkRefusedMessage(who: string, agent: string, r: Refusal, windowSeconds: number, needsProvider = false): string {
  const endpoint = needsProvider ? `\`agents.${agent}.provider\` and \`agents.${agent}.endpoint\`` : `\`agents.${agent}.endpoint\``;
  const what = r.modelHost
    ? "it is the agent's model API"
    : `the agent kept asking for it with no other traffic for ${windowSeconds} s (a CLI retrying an API it cannot reach)`;
  const fix = r.modelHost
    ? `add ${r.host} to \`agents.${agent}.network.allow\` (which replaces its preset's hosts), or point the agent with ${endpoint} at an API it may reach`
    : `add ${r.host} to \`agents.${agent}.network.allow\` if the agent needs it (or set ${endpoint} if it is where its model is)`;
  return `${who} was stopped: the sandbox refused ${r.host}:${r.port} (${r.count} time${r.count === 1 ? '' : 's'}), which is not in its network.allow, and ${what}. To let it through, ${fix}.`;
}

/** The step's error for a run whose vendor stayed unavailable through every retry. */
export function vendorUnavailableMessage(who: string, agent: string, t: VendorTrouble, runs: number): string {
  const answered = t.status !== undefined ? `answered ${t.status}` : 'was unavailable';
  return (
    `${who} could not work: its model's API ${answered} (${JSON.stringify(t.said)}) in each of ${runs} run${runs === 1 ? '' : 's'}, with a backoff between them. ` +
    `That is the vendor, not the work: no repair was spent. Retry the step later, or raise \`agents.${agent}.vendor-retries\`.`
  );
}
