// Which agent an attempt runs and which variables it is given by name: the action runs by it and
// the embedded dispatcher passes exactly these to the step process.
import { describe, expect, it } from 'vitest';
import { agentOfAttempt, attemptSecretNames, byNameOf } from '../../../core/contract/attempt.ts';
import type { StepPayload } from '../../../core/contract/wire.ts';
import { codeStep, gateStep, makePayload } from '../../helpers/payload.ts';

function payload(step: StepPayload['step'], mode: StepPayload['mode'] = 'run'): StepPayload {
  const p = makePayload({ repos: [{ repo: 'acme/web', services: ['web'] }], step, mode });
  return {
    ...p,
    agents: {
      coder: { ...p.agents.coder!, secrets: ['ANTHROPIC_API_KEY'] },
      reviewer: { name: 'reviewer', run: 'r', timeoutMinutes: 5, env: {}, secrets: ['OPENAI_API_KEY', 'GITHUB_TOKEN'] },
      author: { name: 'author', run: 'a', timeoutMinutes: 5, env: {}, secrets: ['AUTHOR_KEY'] },
    },
    services: { web: { ...p.services.web!, secrets: ['VERCEL_TOKEN'], deploy: { run: 'd', timeoutMinutes: 5 } } },
    coder: { agent: 'coder' },
    byName: ['OTHER_AGENT_KEY'],
    environments: [{ service: 'web', envId: 'e', state: 'ready' }],
  };
}

describe('attemptSecretNames', () => {
  it("gives each attempt its own agent's or its deploys' secrets, never a GitHub token", () => {
    expect(attemptSecretNames(payload(codeStep()))).toEqual(['ANTHROPIC_API_KEY']);
    expect(attemptSecretNames(payload({ id: 'r', kind: 'review', agent: 'reviewer', needs: [], timeoutMinutes: 5 }))).toEqual(['OPENAI_API_KEY']);
    expect(attemptSecretNames(payload(gateStep({ run: 'npm test' })))).toEqual([]);
    expect(attemptSecretNames(payload(gateStep({ run: 't {path}', author: 'author', path: 'a.js' })))).toEqual(['AUTHOR_KEY']);
    expect(
      attemptSecretNames(
        payload({ id: 'r', kind: 'review', agent: 'reviewer', needs: [], timeoutMinutes: 5, repair: { agent: 'coder', maxAttempts: 1 } }, 'repair'),
      ),
    ).toEqual(['ANTHROPIC_API_KEY']);
    expect(attemptSecretNames(payload({ id: 'ship', kind: 'merge', method: 'squash', needs: [], timeoutMinutes: 5 }, 'repair'))).toEqual(['ANTHROPIC_API_KEY']);
    expect(attemptSecretNames(payload({ id: 'p', kind: 'deploy', services: ['web'], needs: [], timeoutMinutes: 5 }))).toEqual(['VERCEL_TOKEN']);
    expect(attemptSecretNames(payload({ id: 'p', kind: 'deploy', services: ['web'], needs: [], timeoutMinutes: 5 }, 'teardown'))).toEqual(['VERCEL_TOKEN']);
  });

  it('knows every name given by name anywhere in the run', () => {
    expect([...byNameOf(payload(codeStep()))].sort()).toEqual([
      'ANTHROPIC_API_KEY',
      'AUTHOR_KEY',
      'GITHUB_TOKEN',
      'OPENAI_API_KEY',
      'OTHER_AGENT_KEY',
      'VERCEL_TOKEN',
    ]);
    expect(agentOfAttempt(payload(gateStep({ run: 'npm test' })))).toBeUndefined();
  });
});
