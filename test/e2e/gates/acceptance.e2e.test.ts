// Discriminating gates end to end: an acceptance test must fail on the base branch with only its
// file added; the one that does is committed to the work branch for the code step and later gates.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { configOf, createOrg, HELLO_CODER, statusOf, type Org } from './setup.ts';

const STEPS = `      - { id: accept, kind: gate, author: author, path: test/accept.js, run: "node {path}" }
      - { id: implement, kind: code, agent: coder }
      - { id: accepted, kind: gate, run: node test/accept.js }
      - { id: ship, kind: merge, method: squash }`;

describe('gate with author and path', () => {
  let org: Org;
  beforeEach(() => {
    org = createOrg();
    org.script('coder', HELLO_CODER);
    org.writeConfig(configOf(org, { agents: { author: {}, coder: {} }, steps: STEPS }));
  });
  afterEach(() => org.cleanup());

  it('fails as not discriminating when the test already passes on the base, and pushes nothing', async () => {
    org.script(
      'author',
      `import { mkdirSync, writeFileSync } from 'node:fs';\nmkdirSync('test', { recursive: true });\nwriteFileSync('test/accept.js', "import { greet } from '../lib.js';\\nif (typeof greet() !== 'string') process.exit(1);\\n");\n`,
    );
    const r = await org.conveyor('run', '--config', org.config, '--remotes', org.remotes.dir, '--title', 'Say hello', '--issue', '1');
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stdout).toMatch(/gate-not-discriminating: The acceptance test `test\/accept.js` already passes on the base branch `main` of acme\/web/);
    const s = await statusOf(org, 'web-1');
    expect(s.steps.accept?.status).toBe('failed');
    expect(s.steps.implement?.status).toBe('pending');
    expect(org.remotes.branches('acme/web')).toEqual(['main']);
  });

  it('fails with gate-file-missing when the author writes nothing', async () => {
    org.script('author', `console.log('author: I wrote nothing');\n`);
    const r = await org.conveyor('run', '--config', org.config, '--remotes', org.remotes.dir, '--title', 'Say hello', '--issue', '1');
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/gate-file-missing: The author `author` did not write the gate file `test\/accept.js` in acme\/web/);
  });

  it('keeps a test that fails on the base: the code step sees it, a later gate runs it, the merge commit names it', async () => {
    // The author also leaves a stray file: only the gate file is kept.
    org.script(
      'author',
      `import { mkdirSync, writeFileSync } from 'node:fs';\nmkdirSync('test', { recursive: true });\nwriteFileSync('stray.txt', 'not kept');\nwriteFileSync('test/accept.js', "import { greet } from '../lib.js';\\nif (greet() !== 'hello') { console.error('not ok: greet() said ' + greet()); process.exit(1); }\\n");\n`,
    );
    const r = await org.conveyor('run', '--config', org.config, '--remotes', org.remotes.dir, '--title', 'Say hello', '--issue', '2');
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(org.remotes.show('acme/web', 'main', 'test/accept.js')).toContain("greet() !== 'hello'");
    expect(org.remotes.show('acme/web', 'main', 'lib.js')).toContain("'hello'");
    expect(() => org.remotes.show('acme/web', 'main', 'stray.txt')).toThrow();
    const s = await statusOf(org, 'web-2');
    expect(s.steps.accept?.status).toBe('succeeded');
    expect(s.steps.accepted?.status).toBe('succeeded');
    // The code step's agent found the acceptance test in its checkout.
    expect(readFileSync(join(org.dir, 'attempts', 'web-2', 'implement.run.1.0', 'output.log'), 'utf8')).toContain('coder: saw acceptance test: true');
    const trailers = org.trailers();
    const receipt = (id: string) => s.steps[id]?.result?.receipt?.slice('sha256:'.length);
    expect(trailers).toEqual(['Conveyor-Run: web-2', `Tested-by: conveyor gate accepted (sha256:${receipt('accepted')})`]);
  });
});
