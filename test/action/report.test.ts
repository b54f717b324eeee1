import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkRunOutput, type CheckRunOutput } from '../../action/src/report/check-run.ts';
import { chooseReporters, reportAll } from '../../action/src/report/reporter.ts';
import { WIRE_VERSION, stepResultSchema, type StepResult } from '../../core/contract/wire.ts';
import { removeDir, tempDir } from '../helpers/repos.ts';
import { silentLogger } from '../../lib/logger.ts';

let dir: string;
beforeEach(() => {
  dir = tempDir('conveyor-report-');
});
afterEach(() => removeDir(dir));

const result: StepResult = {
  version: WIRE_VERSION,
  runId: 'r1',
  step: 'test',
  mode: 'run',
  attempt: 2,
  epoch: 1,
  conclusion: 'failure',
  summary: 'x'.repeat(70_000),
  prs: [],
  commits: {},
  environments: [],
  error: { code: 'gate-failed', message: 'm' },
};

describe('reporters', () => {
  it('choose by environment: log always, file with CONVEYOR_RESULT_PATH, check run with a client', async () => {
    const completed: CheckRunOutput[] = [];
    const outputs: Record<string, string> = {};
    const path = join(dir, 'out', 'result.json');
    const reporters = chooseReporters({
      env: { CONVEYOR_RESULT_PATH: path },
      checkRunClient: () => ({ complete: async (c) => void completed.push(c) }),
      log: silentLogger,
      setOutput: (k, v) => (outputs[k] = v),
    });
    expect(reporters.map((r) => r.name)).toEqual(['log', 'result file', 'check run']);
    expect(await reportAll(reporters, result)).toEqual([]);
    expect(stepResultSchema.parse(JSON.parse(readFileSync(path, 'utf8')))).toEqual(result);
    expect(readdirSync(join(dir, 'out'))).toEqual(['result.json']);
    expect(completed[0]).toMatchObject({ name: 'conveyor / test', conclusion: 'failure', title: 'failure: gate-failed', externalId: 'r1:test:2:1' });
    expect(outputs.conclusion).toBe('failure');
    expect(chooseReporters({ env: {} }).map((r) => r.name)).toEqual(['log']);
  });

  it("completes a repair's check run as what it did: neutral when it pushed a fix, never a success that reads as the gate passing", () => {
    const repaired = { ...result, mode: 'repair' as const, conclusion: 'success' as const, error: undefined, summary: 'Repaired 1 of 1 repositories.' };
    expect(checkRunOutput(repaired)).toMatchObject({
      name: 'conveyor / test (repair)',
      conclusion: 'neutral',
      title: 'repair pushed a fix: test runs again on it (no verdict yet)',
      externalId: 'r1:test:2:1',
    });
    expect(checkRunOutput({ ...repaired, conclusion: 'failure', error: { code: 'agent-failed', message: 'exit 1' } })).toMatchObject({
      conclusion: 'failure',
      title: 'repair failed: agent-failed',
    });
  });

  it("leaves a long summary whole: the GitHub layer fits it to GitHub's limit once (test/adapters/github/forge/github.test.ts)", () => {
    expect(checkRunOutput(result).summary).toBe(result.summary);
    expect(checkRunOutput(result).summary.length).toBeGreaterThan(65_535);
  });

  it('one failing reporter does not stop the others', async () => {
    const errors = await reportAll(
      [
        {
          name: 'broken',
          report: async () => {
            throw new Error('disk full');
          },
        },
        ...chooseReporters({ env: { CONVEYOR_RESULT_PATH: join(dir, 'r.json') }, log: silentLogger }),
      ],
      result,
    );
    expect(errors.map((e) => e.message)).toEqual(['reporter broken: disk full']);
    expect(readFileSync(join(dir, 'r.json'), 'utf8')).toContain('"gate-failed"');
  });
});
