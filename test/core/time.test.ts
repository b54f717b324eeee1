// Times and durations as people read them (core/time.ts): what GitHub texts and the command line show.
import { describe, expect, it } from 'vitest';
import { durationBetween, formatAgo, formatClock, formatDuration, formatMoment } from '../../core/time.ts';

const NOW = '2025-03-01T10:02:30.000Z';
const before = (seconds: number) => new Date(Date.parse(NOW) - seconds * 1000).toISOString();

describe('formatDuration', () => {
  it('says a duration in at most two units, the larger first', () => {
    expect(formatDuration(0)).toBe('0s');
    expect(formatDuration(300)).toBe('<1s');
    expect(formatDuration(42_000)).toBe('42s');
    expect(formatDuration(72_000)).toBe('1m 12s');
    expect(formatDuration(60_000)).toBe('1m 0s');
    expect(formatDuration((2 * 3600 + 3 * 60 + 9) * 1000)).toBe('2h 3m');
    expect(formatDuration((3 * 86400 + 4 * 3600) * 1000)).toBe('3d 4h');
  });

  it('never says a negative or impossible duration', () => {
    expect(formatDuration(-5000)).toBe('0s');
    expect(formatDuration(Number.NaN)).toBe('0s');
    expect(durationBetween('2025-03-01T10:00:00Z', '2025-03-01T10:01:12Z')).toBe('1m 12s');
    expect(durationBetween('not a time', NOW)).toBe('');
    expect(durationBetween(undefined, NOW)).toBe('');
  });
});

describe('formatAgo', () => {
  it('says how long ago, as GitHub does, from seconds to weeks', () => {
    expect(formatAgo(before(3), NOW)).toBe('just now');
    expect(formatAgo(before(45), NOW)).toBe('45 sec ago');
    expect(formatAgo(before(150), NOW)).toBe('2 min ago');
    expect(formatAgo(before(3600), NOW)).toBe('1 hour ago');
    expect(formatAgo(before(3 * 3600 + 5), NOW)).toBe('3 hours ago');
    expect(formatAgo(before(30 * 3600), NOW)).toBe('yesterday');
    expect(formatAgo(before(5 * 86400), NOW)).toBe('5 days ago');
  });

  it('gives the date for a month or more back, and "just now" for a clock ahead', () => {
    expect(formatAgo('2024-12-31T23:59:00.000Z', NOW)).toBe('Dec 31 2024, 23:59 UTC');
    expect(formatAgo(new Date(Date.parse(NOW) + 60_000).toISOString(), NOW)).toBe('just now');
    expect(formatAgo('garbage', NOW)).toBe('garbage');
  });
});

describe('formatMoment', () => {
  it('says a moment in UTC, with the year only when it is not this one', () => {
    expect(formatMoment('2025-03-01T10:02:30.000Z', NOW)).toBe('Mar 1, 10:02 UTC');
    expect(formatMoment('2025-03-01T09:05:00+02:00', NOW)).toBe('Mar 1, 07:05 UTC');
    expect(formatMoment('2024-03-01T10:02:30.000Z', NOW)).toBe('Mar 1 2024, 10:02 UTC');
    expect(formatMoment('2024-03-01T10:02:30.000Z')).toBe('Mar 1 2024, 10:02 UTC');
    expect(formatClock('2025-03-01T09:05:00+02:00')).toBe('07:05 UTC');
    expect(formatClock('nope')).toBe('nope');
  });
});
