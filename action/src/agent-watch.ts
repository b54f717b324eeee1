// What the step process watches while an agent runs, besides its output and workspace (the stall
// guard): the hosts its sandbox refuses (a CLI retrying a model API it may not reach is stopped
// within a minute, not at its timeout) and how its model's vendor answers (through the key
// forwarder, and as its CLI's error events say), so that a failure is named for what it is
// (core/steps/agent-trouble.ts decides; this wires it to the run).
import { DEFAULT_VENDOR_RETRIES } from '../../core/config/defaults.ts';
import { endpointHost, isLoopbackHost, presetHosts } from '../../core/config/model-api.ts';
import { REFUSAL_WINDOW_MINUTES, RefusalWatch, VendorWatch, vendorBackoffMinutes, type Refusal, type VendorTrouble } from '../../core/steps/agent-trouble.ts';
import type { ResolvedAgent } from '../../core/plan/types.ts';
import type { StepContext } from './context.ts';

/** The hosts of an agent's model API: its preset's (for its provider) and its endpoint's. A refusal of one of them stops it at once. */
export function modelHostsOf(agent: ResolvedAgent): string[] {
  if (!agent.preset) return [];
  const endpoint = endpointHost(agent);
  return [...presetHosts(agent.preset, agent.provider), ...(endpoint && !isLoopbackHost(endpoint) ? [endpoint] : [])];
}

/** One agent run's watch: the hooks to give its command, and what it saw once the command ended. */
export interface RunWatch {
  stop: AbortSignal;
  onRefused(host: string, port: number): void;
  onAllowed(): void;
  onLine(line: string): void;
  /** An answer of its model's endpoint, through the key forwarder. */
  onAnswer(status: number, body: string): void;
  /** What it saw: the refusal that stopped it; the vendor's trouble, when the command failed. */
  end(failed: boolean): { refused?: Refusal; vendor?: VendorTrouble };
}

export function watchRun(ctx: StepContext, agent: ResolvedAgent, label: string): RunWatch {
  const windowMs = REFUSAL_WINDOW_MINUTES * ctx.minuteMs;
  const refusals = new RefusalWatch({ modelHosts: modelHostsOf(agent), windowMs });
  const vendor = new VendorWatch();
  const controller = new AbortController();
  let refused: Refusal | undefined;
  const check = () => {
    if (refused) return;
    refused = refusals.check(Date.now());
    if (!refused) return;
    ctx.log.warn(`${label}: the sandbox keeps refusing ${refused.host}:${refused.port}; stopping it (see the step's error for the key to add)`);
    controller.abort();
  };
  // Refusals that go on with nothing else are seen within a tenth of the window after it.
  const timer = setInterval(check, Math.max(10, Math.min(5000, Math.floor(windowMs / 10))));
  timer.unref();
  return {
    stop: controller.signal,
    onRefused(host, port) {
      refusals.refused(host, port, Date.now());
      check();
    },
    onAllowed: () => refusals.traffic(),
    onLine: (line) => vendor.line(line),
    onAnswer(status, body) {
      refusals.traffic();
      vendor.answered(status, body);
    },
    end(failed) {
      clearInterval(timer);
      const trouble = failed && !refused ? vendor.trouble() : undefined;
      return { ...(refused ? { refused } : {}), ...(trouble ? { vendor: { ...trouble, said: ctx.scrubber.scrub(trouble.said) } } : {}) };
    },
  };
}

/**
 * Runs `once` (one run of the agent, with its watch) and, while its vendor was the reason it
 * failed, again after a backoff, up to the agent's `vendor-retries`: all within this attempt, so
 * no repair is spent. `runs` in the outcome says how many it took.
 */
export async function withVendorRetries<T extends { vendor?: VendorTrouble }>(
  ctx: StepContext,
  agent: ResolvedAgent,
  label: string,
  once: (run: number) => Promise<T>,
): Promise<T & { runs: number }> {
  const retries = agent.vendorRetries ?? DEFAULT_VENDOR_RETRIES;
  for (let run = 0; ; run++) {
    const outcome = await once(run);
    if (!outcome.vendor || run >= retries) return { ...outcome, runs: run + 1 };
    const ms = vendorBackoffMinutes(run) * ctx.minuteMs;
    ctx.log.warn(
      `${label}: its model's API was unavailable (${outcome.vendor.status ?? 'its CLI said'}: ${JSON.stringify(outcome.vendor.said)}); ` +
        `running it again in ${Math.round(ms / 1000)} s (retry ${run + 1} of ${retries}, in this attempt: no repair is spent)`,
    );
    await ctx.sleep(ms);
  }
}
