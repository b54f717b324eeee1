import { describe, expect, it } from 'vitest';
import { judgeIndependence, modelFamily } from '../../../core/steps/independence.ts';

describe('modelFamily', () => {
  it.each([
    ['anthropic/claude-sonnet-4-5', 'claude-sonnet'],
    ['claude-sonnet-4-5-20250929', 'claude-sonnet'],
    ['Anthropic/Claude-Sonnet-4-5@20250929', 'claude-sonnet'],
    ['bedrock/claude-sonnet-4-5', 'claude-sonnet'],
    ['claude-opus-4-1-20250805', 'claude-opus'],
    ['openai/gpt-5', 'gpt'],
    ['gpt-4o-2024-05-13', 'gpt-4o'],
    ['gpt-4o@2024-05-01', 'gpt-4o'],
    ['gemini-1.5-pro-002', 'gemini-1.5-pro'],
    ['mistral-large-latest', 'mistral-large'],
    ['llama-3-70b-v2', 'llama-3-70b'],
    ['demo/scripted-coder-1', 'scripted-coder'],
    ['o3', 'o3'],
    ['anthropic.claude-3-sonnet-20240229-v1:0', 'anthropic.claude-3-sonnet'],
  ])('%s -> %s', (model, family) => {
    expect(modelFamily(model)).toBe(family);
  });
});

describe('judgeIndependence', () => {
  const coder = { agent: 'coder', model: 'anthropic/claude-sonnet-4-5' };
  it('needs a different agent and a different model family', () => {
    expect(judgeIndependence(coder, { agent: 'reviewer', model: 'openai/gpt-5' })).toMatchObject({ independent: true });
    const sameFamily = judgeIndependence(coder, { agent: 'reviewer', model: 'claude-sonnet-4-5-20250929' });
    expect(sameFamily.independent).toBe(false);
    expect(sameFamily.reason).toContain('same model family `claude-sonnet`');
    const sameAgent = judgeIndependence(coder, { agent: 'coder', model: 'openai/gpt-5' });
    expect(sameAgent).toEqual({ independent: false, reason: 'the reviewer is the same agent (`coder`) that wrote the code' });
  });

  it('cannot call a review independent when a model is not declared', () => {
    expect(judgeIndependence(coder, { agent: 'reviewer' }).reason).toMatch(/reviewer `reviewer` declares no `model`/);
    expect(judgeIndependence({ agent: 'coder' }, { agent: 'reviewer', model: 'x' }).independent).toBe(false);
    expect(judgeIndependence(undefined, { agent: 'reviewer' }).independent).toBe(true);
  });

  it('judges on the models the CLIs reported too: a report can make a review not independent, never independent', () => {
    // The coder's CLI ran another model than configured, of the reviewer's family.
    const ranOther = judgeIndependence({ ...coder, models: ['gpt-5-2025-08-07'] }, { agent: 'reviewer', model: 'openai/gpt-5' });
    expect(ranOther).toEqual({
      independent: false,
      reason: 'coder `coder` reported using gpt-5-2025-08-07 and reviewer `reviewer` is configured with openai/gpt-5: the same model family `gpt`',
    });
    // The reviewer's CLI picked the coder's family ("auto").
    expect(judgeIndependence(coder, { agent: 'reviewer', model: 'github/gpt-5', models: ['claude-sonnet-4.5'] }).independent).toBe(false);
    // Reports of other families leave it independent, and say it was judged on them.
    const both = judgeIndependence(
      { ...coder, models: ['claude-sonnet-4-5', 'claude-haiku-4-5'] },
      { agent: 'reviewer', model: 'openai/gpt-5', models: ['gpt-5'] },
    );
    expect(both).toMatchObject({ independent: true });
    expect(both.reason).toContain('configured and as reported');
    // A reviewer that declares no model is not made independent by what it reports.
    expect(judgeIndependence(coder, { agent: 'reviewer', models: ['gpt-5'] }).independent).toBe(false);
  });
});
