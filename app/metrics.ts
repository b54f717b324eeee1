// `GET /metrics`: the app's Prometheus metrics (prom-client), one registry per app instance.
//   conveyor_webhooks_total{event,outcome}        webhooks by `event.action`: handled, failed, or ignored (no handler)
//   conveyor_webhook_duration_seconds{event}       how long the app's handler took (histogram)
//   conveyor_runs{state}                           active runs (running, waiting), read from the store on each scrape
//   conveyor_runs_finished_total{state}            runs this replica saw end (succeeded, cancelled)
//   conveyor_attempts_total{kind,mode,outcome}     step attempts by step kind, run or repair, and how they ended
//   conveyor_github_calls_total{route,status}      GitHub REST calls by route template and status ("none": no answer)
//   conveyor_github_rate_limit_remaining{installation}   x-ratelimit-remaining of the installation's last answer
//   conveyor_github_rate_limited_total{kind}       rate limits met (primary, secondary)
//   conveyor_ready{check}                          1 while a readiness check (store, github) passes, else 0: what /readyz
//                                                  does not tell a stranger, by the check's name only
// plus Node's process metrics (prom-client's defaults).
//
// Active runs are read from the store when scraped rather than counted as they change: with
// several replicas on one database each sees only its own share of the transitions, while the
// store sees them all, and the active runs are few (ended ones are counted as they end instead:
// reading every run ever made on each scrape would grow without bound).
import { LRUCache } from 'lru-cache';
import type { Probot } from 'probot';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Run, RunEvent } from '../core/run/types.ts';
import type { GitHubCall, RateLimitEvent } from '../adapters/github/octokit.ts';
import type { RunStore } from '../engine/ports/store.ts';
import type { Readiness } from './readiness.ts';
import { silentLogger, type Logger } from '../lib/logger.ts';

const ACTIVE = ['running', 'waiting'] as const;
/** Attempts and runs already counted, remembered so a redelivered event is not counted twice. */
const REMEMBERED = 8192;

export interface AppMetrics {
  readonly registry: Registry;
  /** Times a webhook's handler and counts how it went. */
  webhook<T>(event: string, handle: () => Promise<T>): Promise<T>;
  /** A webhook the app has no handler for. */
  ignored(event: string): void;
  /** Every event the engine applied to a run, with the run after it (the engine's `observe`). */
  observe(run: Run, event: RunEvent): void;
  /** Every GitHub call as it ended (the GitHub policy's `onCall`). */
  githubCall(call: GitHubCall): void;
  /** Every rate limit met (the GitHub policy's `onRateLimit`). */
  rateLimited(event: RateLimitEvent): void;
  /** The store whose active runs each scrape reads. */
  watch(store: RunStore, log?: Logger): void;
  /** The readiness each scrape asks, whose outcomes are kept as for /readyz (a scrape and a poll share a call to GitHub). */
  watchReadiness(ready: () => Promise<Readiness>): void;
  /** The exposition, in Prometheus's text format. */
  scrape(): Promise<{ contentType: string; body: string }>;
}

/** Whether `key` newly has `value` (the least recently seen keys are dropped past REMEMBERED). */
function firstTime(seen: LRUCache<string, string>, key: string, value: string): boolean {
  if (seen.get(key) === value) return false;
  seen.set(key, value);
  return true;
}

export function createAppMetrics(options: { processMetrics?: boolean } = {}): AppMetrics {
  const registry = new Registry();
  if (options.processMetrics !== false) collectDefaultMetrics({ register: registry });
  const registers = [registry];
  let store: RunStore | undefined;
  let readiness: (() => Promise<Readiness>) | undefined;
  let log: Logger = silentLogger;

  const webhooks = new Counter({
    name: 'conveyor_webhooks_total',
    help: 'Webhooks received, by event (event.action) and outcome (handled, failed, ignored)',
    labelNames: ['event', 'outcome'],
    registers,
  });
  const handling = new Histogram({
    name: 'conveyor_webhook_duration_seconds',
    help: "Time the app's handler took for a webhook, by event",
    labelNames: ['event'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers,
  });
  new Gauge({
    name: 'conveyor_runs',
    help: 'Active runs by state, read from the store when scraped',
    labelNames: ['state'],
    registers,
    async collect() {
      if (!store) return;
      try {
        const runs = await store.list({ status: [...ACTIVE] });
        for (const state of ACTIVE) this.set({ state }, runs.filter((r) => r.status === state).length);
      } catch (e) {
        // Nothing rather than a stale number; /readyz says the store is down.
        this.reset();
        log.warn(`metrics could not read the runs: ${(e as Error).message}`);
      }
    },
  });
  new Gauge({
    name: 'conveyor_ready',
    help: 'Whether a readiness check passes (1) or not (0), by check (store, github), asked when scraped',
    labelNames: ['check'],
    registers,
    async collect() {
      if (!readiness) return;
      const { checks } = await readiness();
      this.reset();
      for (const [check, outcome] of Object.entries(checks)) this.set({ check }, outcome === 'ok' ? 1 : 0);
    },
  });
  const finished = new Counter({
    name: 'conveyor_runs_finished_total',
    help: 'Runs this replica saw end, by state (succeeded, cancelled)',
    labelNames: ['state'],
    registers,
  });
  const attempts = new Counter({
    name: 'conveyor_attempts_total',
    help: 'Step attempts that ended, by step kind, mode (run, repair) and outcome (success, failure, neutral, lost)',
    labelNames: ['kind', 'mode', 'outcome'],
    registers,
  });
  const calls = new Counter({
    name: 'conveyor_github_calls_total',
    help: 'GitHub REST calls, by route template and status (none: no answer)',
    labelNames: ['route', 'status'],
    registers,
  });
  const remaining = new Gauge({
    name: 'conveyor_github_rate_limit_remaining',
    help: "Calls left in the rate limit, from the installation's last answer (app: the app's own calls)",
    labelNames: ['installation'],
    registers,
  });
  const limited = new Counter({
    name: 'conveyor_github_rate_limited_total',
    help: 'Rate limits met, by kind (primary, secondary)',
    labelNames: ['kind'],
    registers,
  });

  const countedAttempts = new LRUCache<string, string>({ max: REMEMBERED });
  const countedRuns = new LRUCache<string, string>({ max: REMEMBERED });

  return {
    registry,
    async webhook(event, handle) {
      const stop = handling.startTimer({ event });
      try {
        const out = await handle();
        webhooks.inc({ event, outcome: 'handled' });
        return out;
      } catch (e) {
        webhooks.inc({ event, outcome: 'failed' });
        throw e;
      } finally {
        stop();
      }
    },
    ignored(event) {
      webhooks.inc({ event, outcome: 'ignored' });
    },
    observe(run, event) {
      if (event.type === 'step-completed' || event.type === 'step-lost') {
        const [step, attempt, epoch] =
          event.type === 'step-completed' ? [event.result.step, event.result.attempt, event.result.epoch] : [event.step, event.attempt, event.epoch];
        // Counted once it is recorded (the reducer ignores a result of an attempt that is not current).
        const record = run.steps[step]?.attempts.findLast((r) => r.attempt === attempt && r.epoch === epoch);
        if (record?.conclusion && firstTime(countedAttempts, `${run.id}\u0000${step}\u0000${attempt}\u0000${epoch}`, record.conclusion)) {
          attempts.inc({ kind: run.plan.steps.find((p) => p.id === step)?.kind ?? 'unknown', mode: record.mode, outcome: record.conclusion });
        }
      }
      // The version it ended at: an event that changed nothing after the end is not a second end.
      if ((run.status === 'succeeded' || run.status === 'cancelled') && firstTime(countedRuns, run.id, `${run.status}@${run.version}`))
        finished.inc({ state: run.status });
    },
    githubCall(call) {
      calls.inc({ route: call.route, status: call.status === undefined ? 'none' : String(call.status) });
      if (call.rateLimitRemaining !== undefined)
        remaining.set({ installation: call.installation === undefined ? 'app' : String(call.installation) }, call.rateLimitRemaining);
    },
    rateLimited(event) {
      limited.inc({ kind: event.kind });
    },
    watch(watched, logger) {
      store = watched;
      if (logger) log = logger;
    },
    watchReadiness(ready) {
      readiness = ready;
    },
    async scrape() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}

/** `issues.labeled`: the event and its action, as the app registers its handlers. */
function eventOf(context: { name: string; payload: unknown }): string {
  const action = (context.payload as { action?: unknown } | undefined)?.action;
  return typeof action === 'string' ? `${context.name}.${action}` : context.name;
}

/**
 * Probot's `on` with each handler timed and counted, and every webhook no handler takes counted as
 * ignored: what the app registers its handlers on (Probot itself without metrics).
 */
export function meteredWebhooks(probot: Probot, metrics: AppMetrics | undefined): Pick<Probot, 'on'> {
  if (!metrics) return probot;
  const handled = new Set<string>();
  probot.onAny(async (context) => {
    const event = eventOf(context);
    if (!handled.has(event) && !handled.has(context.name)) metrics.ignored(event);
  });
  const on = (event: string | string[], handler: (context: { name: string; payload: unknown }) => Promise<void>) => {
    for (const e of [event].flat()) handled.add(e);
    probot.on(event as never, ((context: { name: string; payload: unknown }) => metrics.webhook(eventOf(context), () => handler(context))) as never);
  };
  return { on: on as unknown as Probot['on'] };
}
