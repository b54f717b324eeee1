// What a failed write of the file system means to the person who must fix it: a full disk, a
// read-only folder, a file where a folder should be. Node's own text (`ENOSPC: no space left on
// device, write`) names the call, not the folder, nor what to do.

/** The errno codes of a write the machine refused, and what each means. */
const WHY: Record<string, string> = {
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is used up',
  EROFS: 'the file system is read-only',
  EACCES: 'permission denied',
  EPERM: 'the operation is not permitted',
  ENOTDIR: 'a part of that path is a file, not a folder',
  EEXIST: 'a file is where a folder should be',
  EISDIR: 'a folder is where a file should be',
};

/** An error of a file system call that refused a write (one of the codes above), or undefined. */
export function writeFailure(e: unknown): { code: string; path?: string; why: string } | undefined {
  if (!(e instanceof Error)) return undefined;
  const { code, path } = e as NodeJS.ErrnoException;
  if (typeof code !== 'string' || !(code in WHY)) return undefined;
  return { code, ...(typeof path === 'string' ? { path } : {}), why: WHY[code]! };
}

const FULL = new Set(['ENOSPC', 'EDQUOT']);

/**
 * One line: what could not be written (`what`, else the path the error names), why, and what to
 * do (`elsewhere`: where else it could go, e.g. "give `--state` a database on another disk");
 * undefined for an error that is not a refused write.
 */
export function describeWriteFailure(e: unknown, what?: string, elsewhere?: string): string | undefined {
  const failure = writeFailure(e);
  if (!failure) return undefined;
  const target = what ?? failure.path ?? 'a file';
  const at = what && failure.path && !what.includes(failure.path) ? ` (${failure.path})` : '';
  const fix = FULL.has(failure.code) ? 'free some space on that disk' : 'make that path a folder you can write';
  return `cannot write ${target}${at}: ${failure.why} (${failure.code}); ${fix}${elsewhere ? `, or ${elsewhere}` : ''}, then try again`;
}
