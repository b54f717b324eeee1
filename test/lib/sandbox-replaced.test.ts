// Which host folders a sandboxed command sees its own of (lib/sandbox.ts): what Conveyor puts
// there for a command (the demo's agents) is not there for it to run.
import { describe, expect, it } from 'vitest';
import { replacedInSandbox } from '../../lib/sandbox.ts';
import { demoParent } from '../../cli/demo-org.ts';

describe('folders every sandboxed command has its own of', () => {
  it('are /tmp (and /run where there is one), and what is inside them; /var/tmp and the rest are the host’s', () => {
    expect(replacedInSandbox('/tmp')).toBe(true);
    expect(replacedInSandbox('/tmp/cc/examples/demo/agents')).toBe(true);
    expect(replacedInSandbox('/var/tmp/conveyor-demo-x')).toBe(false);
    expect(replacedInSandbox('/tmpfoo/agents')).toBe(false);
    expect(replacedInSandbox('/work/conveyor/examples/demo/agents')).toBe(false);
  });

  it('keep the demo out of /tmp by default: its folder is made where commands see it', () => {
    expect(replacedInSandbox(demoParent())).toBe(false);
  });
});
