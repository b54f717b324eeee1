// Where the step process takes its token from: the input `token` when given, else the OIDC
// exchange (test/action/oidc-token.test.ts). The old workflow template's ways of handing one over
// (the input `token-file`, CONVEYOR_TOKEN_FILE, CONVEYOR_TOKEN) are not read any more: a file
// named there is left alone.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createContext } from '../../action/src/context.ts';
import { obtainToken } from '../../action/src/token.ts';
import { removeDir, tempDir } from '../helpers/repos.ts';
import { silentLogger } from '../../lib/logger.ts';

let dir: string;
beforeEach(() => {
  dir = tempDir('conveyor-token-');
});
afterEach(() => removeDir(dir));

const inputs = (values: Record<string, string>) => (name: string) => values[name] ?? '';
const obtain = (env: NodeJS.ProcessEnv, values: Record<string, string>) =>
  obtainToken({ env, getInput: inputs(values), payload: undefined, log: silentLogger, stopped: () => undefined });

describe('the given token', () => {
  it('is the input `token`, as given', async () => {
    const token = await obtain({}, { token: 'ghs_input' });
    expect(await token?.current()).toBe('ghs_input');
    const seen: string[] = [];
    token?.onToken((t) => seen.push(t));
    expect(seen).toEqual(['ghs_input']);
  });

  it("is none from the old template's token file or CONVEYOR_TOKEN: nothing is read, nothing deleted", async () => {
    const file = join(dir, 'conveyor-token');
    writeFileSync(file, 'ghs_from_file\n');
    expect(await obtain({ CONVEYOR_TOKEN: 'ghs_env', CONVEYOR_TOKEN_FILE: file }, { 'token-file': file })).toBeUndefined();
    expect(existsSync(file)).toBe(true);
  });
});

describe('a step on GitHub without a token', () => {
  it('cannot reach the forge, and says how to get one', async () => {
    const ctx = createContext({ env: { GITHUB_SERVER_URL: 'https://github.com' }, log: () => undefined });
    await expect(ctx.forge()).rejects.toMatchObject({
      code: 'bad-input',
      message:
        "no token to reach https://github.com: name the Conveyor app (CONVEYOR_PUBLIC_URL, or the action input `app-url`), where the action trades the runner's OIDC token for one (see workflows/conveyor.yml), or give the action input `token`",
    });
  });
});
