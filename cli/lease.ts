// One driver per run: the `conveyor` process that drives a run holds its lease in the store (its
// pid, host and start, renewed every few seconds). Another command on the same run refuses, naming
// who holds it, unless that driver is dead (its process gone, or its lease expired); `cancel` asks
// the live driver to stop instead (see drive.ts).
import { hostname } from 'node:os';
import { processAlive } from '../lib/process.ts';
import type { Lease, RunStore } from '../engine/ports/store.ts';

/** How long a lease lasts without a renewal: a driver that stops renewing (killed) is taken over after it. */
export const LEASE_TTL_MS = 15_000;
/** How often a driver renews its lease and looks whether someone cancelled its run. */
export const HEARTBEAT_MS = 1_000;

export interface Holder {
  pid: number;
  host: string;
  since: string;
}

export const leaseName = (runId: string) => `run:${runId}`;

export function describeHolder(lease: Lease): string {
  const h = parseHolder(lease.holder);
  return h ? `conveyor (pid ${h.pid} on ${h.host}, since ${h.since})` : `"${lease.holder}"`;
}

function parseHolder(text: string): Holder | undefined {
  try {
    const h = JSON.parse(text) as Partial<Holder>;
    return typeof h.pid === 'number' && typeof h.host === 'string' && typeof h.since === 'string' ? (h as Holder) : undefined;
  } catch {
    return undefined;
  }
}

/** Whether the lease's holder can no longer drive: expired, or a process of this host that is gone. */
export function holderIsDead(lease: Lease, now = Date.now()): boolean {
  if (lease.expiresAt < now) return true;
  const h = parseHolder(lease.holder);
  return !!h && h.host === hostname() && !processAlive(h.pid);
}

/** A run's lease as this process holds it. */
export class RunLease {
  private timer: NodeJS.Timeout | undefined;

  private constructor(
    private readonly store: RunStore,
    readonly runId: string,
    readonly holder: string,
  ) {}

  /**
   * Takes the run's lease, from a dead driver too; `busy` with the live holder when another
   * process drives the run.
   */
  static async take(store: RunStore, runId: string): Promise<{ lease: RunLease } | { busy: Lease }> {
    const holder = JSON.stringify({ pid: process.pid, host: hostname(), since: new Date().toISOString() } satisfies Holder);
    const name = leaseName(runId);
    let got = await store.acquireLease(name, holder, LEASE_TTL_MS);
    if (got.holder !== holder && holderIsDead(got)) {
      // Its process is gone before its lease ran out (a killed `conveyor run`): nobody drives the run.
      await store.releaseLease(name, got.holder);
      got = await store.acquireLease(name, holder, LEASE_TTL_MS);
    }
    if (got.holder !== holder) return { busy: got };
    return { lease: new RunLease(store, runId, holder) };
  }

  /**
   * Renews the lease every HEARTBEAT_MS, and calls `beat` each time (the driver looks whether its
   * run was cancelled by another command). A renewal that finds the lease taken calls `lost`.
   */
  keep(beat: () => Promise<void>, lost: (by: Lease) => void): void {
    const tick = async () => {
      const now = await this.store.acquireLease(leaseName(this.runId), this.holder, LEASE_TTL_MS);
      if (now.holder !== this.holder) return lost(now);
      await beat();
    };
    this.timer = setInterval(() => void tick().catch(() => undefined), HEARTBEAT_MS);
    // A driver with nothing else to do exits; its lease expires.
    this.timer.unref();
  }

  async release(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.store.releaseLease(leaseName(this.runId), this.holder);
  }
}
