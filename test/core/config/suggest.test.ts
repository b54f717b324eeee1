import { describe, expect, it } from 'vitest';
import { didYouMean, editDistance, suggest } from '../../../core/config/suggest.ts';

describe('editDistance', () => {
  it.each([
    ['', '', 0],
    ['', 'abc', 3],
    ['kitten', 'sitting', 3],
    ['need', 'needs', 1],
    ['gaet', 'gate', 1], // an adjacent transposition is one edit
    ['ab', 'ba', 1],
    ['depends_on', 'depends-on', 1],
    ['ca', 'abc', 3], // optimal string alignment: no edits of a transposed pair
  ])('%j to %j is %i', (a, b, d) => {
    expect(editDistance(a, b)).toBe(d);
    expect(editDistance(b, a)).toBe(d);
  });
});

describe('suggest', () => {
  const keys = ['id', 'kind', 'needs', 'timeout-minutes', 'agent', 'repair'];
  it.each([
    ['need', keys, 'needs'],
    ['kidn', keys, 'kind'],
    ['agnet', keys, 'agent'],
    ['timeout', keys, 'timeout-minutes'],
    ['timeout_minutes', keys, 'timeout-minutes'],
    ['TimeoutMinutes', keys, 'timeout-minutes'],
    ['dependsOn', ['repo', 'depends-on'], 'depends-on'],
    ['Coder', ['coder', 'reviewer'], 'coder'],
    ['ap', ['web', 'api'], 'api'],
  ])('%j -> %j', (name, candidates, expected) => {
    expect(suggest(name, candidates)).toBe(expected);
  });

  it.each([
    ['api', ['web', 'docs']],
    ['b', ['a']],
    ['payments', ['web', 'api']],
    ['build', ['code', 'gate', 'review', 'deploy', 'approval', 'merge']],
    ['needs', ['needs']], // the name itself is not a suggestion
  ])('nothing close to %j', (name, candidates) => {
    expect(suggest(name, candidates)).toBeUndefined();
  });

  it('prefers the closest, then the first of equals', () => {
    expect(suggest('tast', ['test', 'task'])).toBe('test');
    expect(suggest('tesk', ['test', 'task'])).toBe('test');
    expect(suggest('gates', ['gate', 'gated'])).toBe('gate');
  });

  it('formats a hint ready to append, or nothing', () => {
    expect(didYouMean('sqash', ['merge', 'squash', 'rebase'])).toBe('; did you mean "squash"?');
    expect(didYouMean('zzz', ['merge'])).toBe('');
  });
});
