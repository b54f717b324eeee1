// Where the step process takes its token from: a token file (read, then deleted) before the input
// `token`, before CONVEYOR_TOKEN; a bad token file is refused, naming it.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createContext } from '../../action/src/context.ts';
import { takeToken } from '../../action/src/token.ts';
import { removeDir, tempDir } from '../helpers/repos.ts';

let dir: string;
beforeEach(() => {
  dir = tempDir('conveyor-token-');
});
afterEach(() => removeDir(dir));

const inputs = (values: Record<string, string>) => (name: string) => values[name] ?? '';

describe('takeToken', () => {
  it('prefers the token file (deleting it), then the input, then CONVEYOR_TOKEN', () => {
    const file = join(dir, 'conveyor-token');
    writeFileSync(file, 'ghs_from_file\n');
    expect(takeToken({ env: { CONVEYOR_TOKEN: 'ghs_env' }, getInput: inputs({ 'token-file': file, token: 'ghs_input' }) })).toBe('ghs_from_file');
    expect(existsSync(file)).toBe(false);
    writeFileSync(file, 'ghs_from_env_file');
    expect(takeToken({ env: { CONVEYOR_TOKEN_FILE: file }, getInput: inputs({}) })).toBe('ghs_from_env_file');
    expect(takeToken({ env: { CONVEYOR_TOKEN: 'ghs_env' }, getInput: inputs({ token: 'ghs_input' }) })).toBe('ghs_input');
    expect(takeToken({ env: { CONVEYOR_TOKEN: 'ghs_env' }, getInput: inputs({}) })).toBe('ghs_env');
    expect(takeToken({ env: {}, getInput: inputs({}) })).toBeUndefined();
  });

  it('refuses a file it cannot read, or that holds anything but one token', () => {
    const missing = join(dir, 'missing');
    expect(() => takeToken({ env: {}, getInput: inputs({ 'token-file': missing }) })).toThrow(
      `the token file ${missing} (input \`token-file\`) cannot be read`,
    );
    const empty = join(dir, 'empty');
    writeFileSync(empty, '\n');
    expect(() => takeToken({ env: {}, getInput: inputs({ 'token-file': empty }) })).toThrow(
      'must hold the installation token alone, on one line; it holds nothing',
    );
    // A folder in place of the file: it cannot be read.
    const folder = join(dir, 'folder');
    mkdirSync(folder);
    expect(() => takeToken({ env: {}, getInput: inputs({ 'token-file': folder }) })).toThrow(/cannot be read/);
  });
});

describe('a step on GitHub without a token', () => {
  it('cannot reach the forge, and says which inputs give the token', async () => {
    const ctx = createContext({ env: { GITHUB_SERVER_URL: 'https://github.com' }, log: () => undefined });
    await expect(ctx.forge()).rejects.toMatchObject({
      code: 'bad-input',
      message: 'no token to reach https://github.com: give the action input `token-file` (or `token`, CONVEYOR_TOKEN_FILE, CONVEYOR_TOKEN)',
    });
  });
});
