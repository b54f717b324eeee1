import { describe, expect, it } from 'vitest';
import { Scrubber, commandEnvironment, isSecretName } from '../../lib/secrets.ts';

describe('secrets', () => {
  it('knows the names of secrets and leaves the contract alone', () => {
    for (const n of [
      'GITHUB_TOKEN',
      'INPUT_TOKEN',
      'CONVEYOR_TOKEN',
      'ACTIONS_RUNTIME_TOKEN',
      'ACTIONS_ID_TOKEN_REQUEST_TOKEN',
      'NPM_SECRET',
      'DB_PASSWORD',
      'SSH_PRIVATE_KEY',
      'AWS_CREDENTIALS',
      'ANTHROPIC_API_KEY',
      'GEMINI_APIKEY',
      'AWS_SECRET_ACCESS_KEY',
    ]) {
      expect(isSecretName(n), n).toBe(true);
    }
    for (const n of ['PATH', 'HOME', 'CONVEYOR_PROMPT_FILE', 'CONVEYOR_RUN_ID', 'GITHUB_SERVER_URL', 'CLAUDE_CODE_USE_BEDROCK', 'KEYBOARD'])
      expect(isSecretName(n), n).toBe(false);
  });

  it('drops secrets by name and by value, then adds the extra variables', () => {
    const token = 'ghs_abcdefghijklmnop';
    const scrubber = Scrubber.fromEnvironment({ GITHUB_TOKEN: token }, token);
    const env = commandEnvironment({ PATH: '/bin', GITHUB_TOKEN: token, ODD_NAME: `x${token}y`, DB_PASSWORD: 'hunter22' }, scrubber, { CONVEYOR_STEP: 's' });
    expect(env).toEqual({ PATH: '/bin', CONVEYOR_STEP: 's' });
  });

  it("keeps the step process's own files (payload, result, deploy progress) from every command", () => {
    const scrubber = Scrubber.fromEnvironment({}, undefined);
    const env = commandEnvironment(
      {
        PATH: '/bin',
        CONVEYOR_PAYLOAD_PATH: '/a/payload.json',
        CONVEYOR_RESULT_PATH: '/a/result.json',
        CONVEYOR_PROGRESS_PATH: '/a/progress.jsonl',
        CONVEYOR_WORKSPACE_ROOT: '/a/ws',
      },
      scrubber,
      { CONVEYOR_RESULT_FILE: '/a/ws/.conveyor/result.json' },
    );
    expect(env).toEqual({ PATH: '/bin', CONVEYOR_WORKSPACE_ROOT: '/a/ws', CONVEYOR_RESULT_FILE: '/a/ws/.conveyor/result.json' });
  });

  it('scrubs a value added later (a secret passed by name), inside longer text and line by line', () => {
    const s = Scrubber.fromEnvironment({}, undefined);
    s.add('vercel-0123456789');
    s.add('-----BEGIN KEY-----\nMIIEvQIBADANBgkqhkiG9w0\n-----END KEY-----');
    expect(s.scrub('url=https://x.test/?t=vercel-0123456789&a=1')).toBe('url=https://x.test/?t=***&a=1');
    expect(s.scrub('line 2 is MIIEvQIBADANBgkqhkiG9w0 alone')).toBe('line 2 is *** alone');
    expect(s.carriesSecret('prefix-vercel-0123456789')).toBe(true);
  });

  it('drops the variables passed only by name from every command that is not given them', () => {
    const env = commandEnvironment(
      { PATH: '/bin', TEAM_ROUTE: 'r-1', DEPLOY_HOOK: 'h-2' },
      Scrubber.fromEnvironment({}, undefined),
      { DEPLOY_HOOK: 'h-2' },
      new Set(['TEAM_ROUTE', 'DEPLOY_HOOK']),
    );
    expect(env).toEqual({ PATH: '/bin', DEPLOY_HOOK: 'h-2' });
  });

  it('scrubs the token, its basic-auth and base64 forms, and secret-named values', () => {
    const token = 'ghs_abcdefghijklmnop';
    const s = Scrubber.fromEnvironment({ MY_SECRET: 'another-secret', SHORT_TOKEN: 'abc' }, token);
    const basic = Buffer.from(`x-access-token:${token}`).toString('base64');
    expect(s.scrub(`t=${token} b=${basic} o=another-secret abc`)).toBe('t=*** b=*** o=*** abc');
  });
});
