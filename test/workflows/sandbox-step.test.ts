// The workflow template's first step, as a runner would run it: it makes the sandbox possible where
// it can (bubblewrap and socat installed, user namespaces allowed for bwrap) and never fails the
// job where it cannot (no sudo, no apt-get): the action then says once that it runs unsandboxed,
// or fails the step as `sandbox-unavailable` when the pipeline requires a sandbox.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ROOT } from '../helpers/cli.ts';
import { removeDir, tempDir } from '../helpers/repos.ts';

interface Step {
  name?: string;
  run?: string;
  uses?: string;
  'continue-on-error'?: boolean;
  shell?: string;
}

const template = parse(readFileSync(join(ROOT, 'workflows', 'conveyor.yml'), 'utf8')) as { jobs: { step: { steps: Step[] } } };
const steps = template.jobs.step.steps;
const sandboxStep = steps.find((s) => s.run?.includes('bwrap'));

let bin: string;
beforeEach(() => {
  bin = tempDir('conveyor-runner-bin-');
  // The tools every runner has, and nothing else: no bwrap, socat, sudo or apt-get unless a test adds them.
  for (const tool of ['cat', 'tee', 'printf', 'env', 'true']) {
    const found = ['/usr/bin', '/bin'].map((d) => join(d, tool)).find((p) => existsSync(p));
    if (found) symlinkSync(found, join(bin, tool));
  }
});
afterEach(() => removeDir(bin));

function stub(name: string, body: string): void {
  writeFileSync(join(bin, name), `#!/bin/bash\n${body}\n`);
  chmodSync(join(bin, name), 0o755);
}

/** Runs the step's script as GitHub's runner does (bash), as an unprivileged user (an `id` that says 1001). */
function runStep(): { status: number | null; output: string } {
  stub('id', 'echo 1001');
  const r = spawnSync('/bin/bash', ['-e', '-c', sandboxStep!.run!], { env: { PATH: bin }, encoding: 'utf8' });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

describe("the workflow template's sandbox step", () => {
  it('comes before the action, and cannot fail the job', () => {
    expect(sandboxStep).toBeDefined();
    expect(steps.indexOf(sandboxStep!)).toBeLessThan(steps.findIndex((s) => s.uses?.startsWith('conveyor-dev/conveyor')));
    expect(sandboxStep!['continue-on-error']).toBe(true);
    expect(sandboxStep!.shell).toBe('bash');
  });

  it('on a runner without sudo or apt-get, says once that the steps run unsandboxed and succeeds', () => {
    const r = runStep();
    expect(r.status, r.output).toBe(0);
    expect(r.output).toMatch(/::notice title=Conveyor sandbox::bubblewrap or socat is missing and cannot be installed here/);
  });

  it('installs bubblewrap and socat with sudo and apt-get where it can', () => {
    const calls = join(bin, 'calls.log');
    stub('sudo', `[ "$1" = -n ] && shift; [ "$1" = true ] && exit 0; echo "sudo $*" >> ${calls}; "$@"`);
    stub('apt-get', `echo "apt-get $*" >> ${calls}`);
    const r = runStep();
    expect(r.status, r.output).toBe(0);
    const log = readFileSync(calls, 'utf8');
    expect(log).toContain('apt-get update -qq');
    expect(log).toMatch(/apt-get install -y -qq bubblewrap socat/);
  });

  it('succeeds even when the install fails, saying so', () => {
    stub('sudo', '[ "$1" = -n ] && shift; [ "$1" = true ] && exit 0; "$@"');
    stub('apt-get', 'echo "E: Could not get lock" >&2; exit 100');
    const r = runStep();
    expect(r.status, r.output).toBe(0);
    expect(r.output).toContain('installing bubblewrap and socat failed');
  });
});
