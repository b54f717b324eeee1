// What the command line shows while a run goes (cli/progress.ts): running steps with their elapsed
// time, attempt, log and last line (masked by the local dispatcher's view, over a real attempt
// folder), every failed attempt with ✗, its reason and its log, and what a repair did.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createProgress, failureReason } from '../../cli/progress.ts';
import { createLocalDispatcher } from '../../adapters/dispatch/local.ts';
import type { Run, RunEvent } from '../../core/run/types.ts';
import { makePayload } from '../helpers/payload.ts';
import { planOf } from '../helpers/plans.ts';
import { removeDir, tempDir } from '../helpers/repos.ts';
import { AT, current, start, step } from '../core/run/drive.ts';

const later = (seconds: number): string => new Date(Date.parse(AT) + seconds * 1000).toISOString();
const at = (event: RunEvent, seconds: number): RunEvent => ({ ...event, at: later(seconds) });

/** A stream that keeps what is written; `isTTY` as asked. */
function stream(tty: boolean, columns?: number) {
  const chunks: string[] = [];
  return { isTTY: tty, columns, write: (s: string) => chunks.push(s) > 0, text: () => chunks.join('') } as unknown as NodeJS.WritableStream & {
    isTTY: boolean;
    text(): string;
  };
}

const GATE_SUMMARY = [
  '**Gate `test` failed in 1 of 2.**',
  '',
  '### Failing lines',
  '',
  '### acme/web: `npm test` (exit 1)',
  '```text',
  '…',
  'not ok 1 - each product shows its price in dollars and cents',
  '# fail 1',
  '```',
].join('\n');

describe('progress while a run goes', () => {
  const plan = planOf([
    { id: 'implement', kind: 'code' },
    { id: 'test', kind: 'gate', repair: 2 },
  ]);
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) removeDir(d);
    delete process.env.DEMO_API_KEY;
  });

  function dispatcher() {
    const stateDir = tempDir('conveyor-progress-');
    dirs.push(stateDir);
    return createLocalDispatcher({ stateDir, remotes: stateDir });
  }

  it('tells each running step every interval with its elapsed time, attempt, log and last line, a secret in it masked', () => {
    process.env.DEMO_API_KEY = 'sk-live-0123456789';
    const d = dispatcher();
    const run = start(plan).run;
    const log = d.view({ runId: run.id, step: 'implement', attempt: 1, epoch: 0, mode: 'run' }).log;
    mkdirSync(dirname(log), { recursive: true });
    writeFileSync(log, 'conveyor: run r1, step implement\n  | calling the API with sk-live-0123456789\x1b[0m\n\n');
    const out = stream(false);
    let now = Date.parse(AT);
    const progress = createProgress(out, { view: (ref) => d.view(ref), now: () => now });
    try {
      progress.event(run, { type: 'started', at: AT });
      expect(out.text()).toBe(`r1  ▸ implement    running   attempt 1  (log: ${log})\n`);
      now += 72_000;
      progress.tick();
      expect(out.text().split('\n')[1]).toBe(`r1  ▸ implement    running   attempt 1  1m 12s  log: ${log}  › | calling the API with ***`);
    } finally {
      progress.done();
    }
  });

  it("masks a secret the attempt's payload passes by name, though the first look came before the payload was written", () => {
    process.env.DEMO_VENDOR_HANDLE = 'opaque-by-name-value-42';
    const d = dispatcher();
    const run = start(plan).run;
    const ref = { runId: run.id, step: 'implement', attempt: 1, epoch: 0, mode: 'run' } as const;
    const log = d.view(ref).log;
    mkdirSync(dirname(log), { recursive: true });
    writeFileSync(log, '  | token opaque-by-name-value-42\n');
    // Told before it is dispatched: no payload yet, so only secret-named variables are known.
    expect(d.view(ref).lastLine).toBe('| token opaque-by-name-value-42');
    writeFileSync(join(dirname(log), 'payload.json'), JSON.stringify({ ...makePayload({ repos: [{ repo: 'acme/web' }] }), byName: ['DEMO_VENDOR_HANDLE'] }));
    expect(d.view(ref).lastLine).toBe('| token ***');
    delete process.env.DEMO_VENDOR_HANDLE;
  });

  it('prints a failed gate attempt with ✗, its failing test and its log, then the repair that fixed it', () => {
    const d = dispatcher();
    let run: Run = start(plan).run;
    const out = stream(false);
    const progress = createProgress(out, { view: (ref) => d.view(ref), now: () => Date.parse(later(30)) });
    try {
      progress.event(run, { type: 'started', at: AT });
      run = step(run, at(current(run, 'implement', 'success'), 3)).run;
      progress.event(run, { type: 'started', at: AT });
      run = step(
        run,
        at(current(run, 'test', 'failure', { summary: GATE_SUMMARY, error: { code: 'gate-failed', message: 'gate test failed in acme/web' } }), 10),
      ).run;
      progress.event(run, { type: 'started', at: AT });
      run = step(run, at(current(run, 'test', 'success', { summary: 'Repaired 1 of 2 repositories.' }), 14)).run;
      progress.event(run, { type: 'started', at: AT });
    } finally {
      progress.done();
    }
    const lines = out.text().split('\n');
    const failed = lines.findIndex((l) => l.includes('✗'));
    expect(lines[failed]).toBe(
      'r1  ✗ test         attempt 1 failed after 7s: gate-failed: gate test failed in acme/web — not ok 1 - each product shows its price in dollars and cents',
    );
    expect(lines[failed + 1]).toBe(`r1    log: ${d.view({ runId: 'r1', step: 'test', attempt: 1, epoch: 0, mode: 'run' }).log}`);
    expect(lines).toContain('r1  ↻ test         repair 2 pushed a fix after 4s: Repaired 1 of 2 repositories.');
    expect(lines.some((l) => l.startsWith('r1  ▸ test         repairing attempt 2'))).toBe(true);
  });

  it('on a terminal redraws the steps in place, and writes a failure above them, where it stays', () => {
    let run: Run = start(plan).run;
    const out = stream(true, 120);
    const progress = createProgress(out, { view: () => ({ log: '/s/output.log', lastLine: 'compiling' }), now: () => Date.parse(later(5)) });
    try {
      progress.event(run, { type: 'started', at: AT });
      expect(out.text()).toBe(
        ['▸ implement    running   attempt 1  5s', '               log: /s/output.log', '               › compiling', '· test']
          .map((l) => `\x1b[2K${l}\n`)
          .join('') + '\x1b[J',
      );
      const before = out.text().length;
      run = step(run, at(current(run, 'implement', 'failure', { error: { code: 'no-changes', message: 'The agent changed nothing' } }), 2)).run;
      progress.event(run, { type: 'started', at: AT });
      const redraw = out.text().slice(before);
      // Up over the 4 lines drawn, the failure, then the block again.
      expect(
        redraw.startsWith('\x1b[4A\x1b[2K✗ implement    attempt 1 failed after 2s: no-changes: The agent changed nothing\n\x1b[2K  log: /s/output.log\n'),
      ).toBe(true);
      // The block below it, redrawn: the step failed, the next one not started.
      expect(redraw.endsWith('\x1b[2K· test\n\x1b[J')).toBe(true);
    } finally {
      progress.done();
    }
  });

  it('says why an attempt failed in one line', () => {
    expect(failureReason({ summary: '**Reviewer** said\nno' })).toBe('Reviewer said');
    expect(failureReason({ error: { code: 'x', message: 'a\nb' } })).toBe('x: a b');
  });
});
