// The token broker's refusal buckets on their own: a repository is held up after `capacity`
// refusals, for as long as it takes one to be forgiven; names are case-insensitive; and the map
// forgets the repositories refused least recently once it holds `maxRepositories`.
import { describe, expect, it } from 'vitest';
import { createRefusalLimit } from '../../app/refusal-limit.ts';

describe('the refusal limit', () => {
  it('holds a repository up after its capacity of refusals, until one is forgiven', () => {
    const limit = createRefusalLimit({ capacity: 2, refillMs: 1000 });
    limit.refused('acme/web', 0);
    expect(limit.waitMs('acme/web', 0)).toBe(0);
    limit.refused('ACME/Web', 0);
    expect(limit.waitMs('acme/web', 0)).toBe(1000);
    expect(limit.waitMs('acme/web', 400)).toBe(600);
    expect(limit.waitMs('acme/web', 1000)).toBe(0);
    expect(limit.waitMs('acme/api', 0)).toBe(0);
  });

  it('forgets the repositories refused least recently beyond its bound, whose buckets then count as full', () => {
    const limit = createRefusalLimit({ capacity: 1, refillMs: 60_000, maxRepositories: 2 });
    limit.refused('a/one', 0);
    limit.refused('a/two', 1);
    // Refused again: now the most recent, so a/two is the one forgotten.
    limit.refused('a/one', 2);
    limit.refused('a/three', 3);
    expect(limit.waitMs('a/one', 3)).toBeGreaterThan(0);
    expect(limit.waitMs('a/three', 3)).toBeGreaterThan(0);
    expect(limit.waitMs('a/two', 3)).toBe(0);
  });
});
