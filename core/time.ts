// Times and durations as people read them, for every text Conveyor shows: GitHub's comments and
// check runs, and the command line. Pure: the caller says what "now" is.
//
// A text that stays as it was written (a comment, a check run) says when in a way that stays true
// (`Mar 1, 10:02 UTC`, `12m 3s after it started`); only a text read the moment it is made (the
// command line's status) says `2 min ago`.

const MINUTE = 60;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** `<1s`, `42s`, `1m 12s`, `2h 3m`, `3d 4h`: two units at most, the larger first. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '0s';
  if (ms > 0 && ms < 1000) return '<1s';
  const s = Math.round(ms / 1000);
  if (s < MINUTE) return `${s}s`;
  if (s < HOUR) return `${Math.floor(s / MINUTE)}m ${s % MINUTE}s`;
  if (s < DAY) return `${Math.floor(s / HOUR)}h ${Math.floor((s % HOUR) / MINUTE)}m`;
  return `${Math.floor(s / DAY)}d ${Math.floor((s % DAY) / HOUR)}h`;
}

/** The time from `from` to `to` (ISO times), as formatDuration says it; empty when either is not a time. */
export function durationBetween(from: string | undefined, to: string | undefined): string {
  const a = from ? Date.parse(from) : NaN;
  const b = to ? Date.parse(to) : NaN;
  return Number.isFinite(a) && Number.isFinite(b) ? formatDuration(b - a) : '';
}

const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`;

/**
 * How long ago `at` was, as of `now` (ISO times): `just now`, `45 sec ago`, `2 min ago`,
 * `3 hours ago`, `yesterday`, `5 days ago`; a month or more back, the date (formatMoment). A time
 * after `now` (clocks apart) reads `just now`. For texts read at once: a comment would keep saying it.
 */
export function formatAgo(at: string, now: string): string {
  const then = Date.parse(at);
  const current = Date.parse(now);
  if (!Number.isFinite(then) || !Number.isFinite(current)) return at;
  const s = Math.round((current - then) / 1000);
  if (s < 10) return 'just now';
  if (s < MINUTE) return `${s} sec ago`;
  if (s < HOUR) return `${Math.floor(s / MINUTE)} min ago`;
  if (s < DAY) return `${plural(Math.floor(s / HOUR), 'hour')} ago`;
  if (s < 2 * DAY) return 'yesterday';
  if (s < 30 * DAY) return `${Math.floor(s / DAY)} days ago`;
  return formatMoment(at, now);
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/**
 * A moment that a text keeps: `Mar 1, 10:02 UTC`, with the year when it is not `now`'s
 * (`Dec 31 2024, 23:59 UTC`). UTC, because GitHub shows the text to people in every time zone.
 */
export function formatMoment(at: string, now?: string): string {
  const t = new Date(at);
  if (!Number.isFinite(t.getTime())) return at;
  const sameYear = now !== undefined && new Date(now).getUTCFullYear() === t.getUTCFullYear();
  const day = `${MONTHS[t.getUTCMonth()]} ${t.getUTCDate()}${sameYear ? '' : ` ${t.getUTCFullYear()}`}`;
  const time = `${String(t.getUTCHours()).padStart(2, '0')}:${String(t.getUTCMinutes()).padStart(2, '0')}`;
  return `${day}, ${time} UTC`;
}

/** The time of day of a moment, `10:02 UTC`: where the day is plain from what is around it (a step running now). */
export function formatClock(at: string): string {
  const t = new Date(at);
  if (!Number.isFinite(t.getTime())) return at;
  return `${String(t.getUTCHours()).padStart(2, '0')}:${String(t.getUTCMinutes()).padStart(2, '0')} UTC`;
}
