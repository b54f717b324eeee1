// The outbox of one run, kept in two columns of the run's own row: the effects still pending
// (JSON, in commit order) and the keys of the effects carried out. A transition then writes one
// row (one page when the run is small) instead of the run plus rows of a second table: the
// pending effects and the run change in the same UPDATE, so they are atomic by construction.
//
// The done keys are kept for good, so that an effect committed again after it was carried out is
// not stored again (as with a table keyed by run and key). A key is stored without its run's id
// when it starts with it (most do: `<run>:<step>:…`), which keeps the row small.
import type { RunEffect } from '../../core/run/types.ts';

/** The two outbox columns of a run row, as text ('' when empty). */
export interface OutboxColumns {
  pending: string;
  done: string;
}

/** The outbox of one run, being changed (one transaction). */
export class Outbox {
  private pendingList: RunEffect[] | undefined;
  private doneKeys: Set<string> | undefined;
  /** Done keys added since reading (appended to the column as they are). */
  private doneAdded: string[] = [];
  private changed = false;

  constructor(
    private readonly runId: string,
    private readonly columns: OutboxColumns,
    private readonly what: string,
  ) {}

  /** Stores effects whose key is neither pending nor done; in order. */
  add(effects: readonly RunEffect[]): void {
    if (effects.length === 0) return;
    const pending = this.pending();
    const keys = new Set(pending.map((p) => p.key));
    for (const e of effects) {
      if (keys.has(e.key) || this.isDone(e.key)) continue;
      keys.add(e.key);
      pending.push(e);
      this.changed = true;
    }
  }

  /** Marks pending effects done by key (a key not pending changes nothing). */
  markDone(keys: Iterable<string>): void {
    if (this.columns.pending === '' && !this.pendingList) return;
    const pending = this.pending();
    for (const key of keys) {
      const i = pending.findIndex((e) => e.key === key);
      if (i < 0) continue;
      pending.splice(i, 1);
      this.doneAdded.push(this.short(key));
      this.changed = true;
    }
  }

  /** The effects still pending, in commit order. */
  pending(): RunEffect[] {
    if (!this.pendingList) this.pendingList = this.columns.pending === '' ? [] : parsePending(this.columns.pending, this.what);
    return this.pendingList;
  }

  /** True when `add` or `markDone` changed something to write. */
  get dirty(): boolean {
    return this.changed;
  }

  /** The columns to write. */
  columnsToWrite(): OutboxColumns {
    if (!this.changed) return this.columns;
    const pending = this.pending();
    let done = this.columns.done;
    for (const k of this.doneAdded) done += `${k}\n`;
    return { pending: pending.length === 0 ? '' : JSON.stringify(pending), done };
  }

  private isDone(key: string): boolean {
    if (this.columns.done === '' && this.doneAdded.length === 0) return false;
    if (!this.doneKeys) this.doneKeys = new Set(this.columns.done.split('\n'));
    const short = this.short(key);
    return this.doneKeys.has(short) || this.doneAdded.includes(short);
  }

  /**
   * The key as stored in the done column, one a line: `~rest` for `<runId>:rest`, `=key` for
   * another key, and the key as a JSON string when it holds a line break.
   */
  private short(key: string): string {
    if (key.includes('\n')) return JSON.stringify(key);
    return key.startsWith(this.runId) && key.charCodeAt(this.runId.length) === 58 ? `~${key.slice(this.runId.length + 1)}` : `=${key}`;
  }
}

export function parsePending(text: string, what: string): RunEffect[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new OutboxError(`The pending effects of ${what} are not valid JSON (${(e as Error).message}).`, e);
  }
  if (!Array.isArray(value) || !value.every((e) => e && typeof e === 'object' && typeof (e as { key?: unknown }).key === 'string')) {
    throw new OutboxError(`The pending effects of ${what} are not a list of effects with keys.`);
  }
  return value as RunEffect[];
}

/** A damaged outbox column; the store turns it into a StoreError naming the database. */
export class OutboxError extends Error {
  constructor(message: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'OutboxError';
  }
}
