// What a teardown attempt reports to the run: the environments it removed, and those it did not,
// with the reason, whichever way its result arrived (the local dispatcher or a check run).
import { describe, expect, it } from 'vitest';
import { tornDownEvent } from '../../../core/run/environments.ts';
import type { Environment } from '../../../core/contract/wire.ts';

const web: Environment = { service: 'web', envId: 'r-web', state: 'ready', url: 'http://web' };
const api: Environment = { service: 'api', envId: 'r-api', state: 'ready', url: 'http://api' };

describe('tornDownEvent', () => {
  it('names no failure when every target was removed', () => {
    expect(tornDownEvent([web, api], [web, api], 'unused', 'T')).toEqual({ type: 'torn-down', at: 'T', environments: [web, api] });
  });

  it('keeps each target that was not removed, with the reason', () => {
    expect(tornDownEvent([web, api], [web], 'api: preview-down.sh exited 1', 'T')).toEqual({
      type: 'torn-down',
      at: 'T',
      environments: [web],
      failed: [{ ...api, error: 'api: preview-down.sh exited 1' }],
    });
  });

  it('treats a lost teardown as removing nothing', () => {
    expect(tornDownEvent([web], [], 'the step process was killed', 'T').failed).toEqual([{ ...web, error: 'the step process was killed' }]);
  });
});
