// Commits made through GitHub's Git data API (`commits: verified`): what fits in one request, what
// goes inline and what as a blob of its own, and the limits those follow. GitHub documents no
// size for a tree request or for a blob made through the API; what it does say, and what others
// measured, sets these:
// - no file over 100 MiB is taken into a repository at all (a push of one is refused too);
// - blobs are made through the API as base64, each in a request of its own (paced, and counted
//   against the limit of content-creating requests), so small text files go inline in the tree
//   request instead (GitHub writes their blobs), several to a request;
// - a tree request of a few megabytes of inline content has been seen to time out, so one holds at
//   most INLINE_REQUEST_BYTES of it, and a change with more is sent as several tree requests, each
//   on the tree the one before made.

export interface ApiCommitLimits {
  /** The largest file sent at all (GitHub's limit for any file in a repository). */
  maxFileBytes: number;
  /** The largest text file sent inline in a tree request (larger: a blob of its own). */
  inlineFileBytes: number;
  /** Inline content (as JSON) per tree request. */
  inlineRequestBytes: number;
  /** Entries per tree request. */
  entriesPerRequest: number;
}

export const GITHUB_LIMITS: ApiCommitLimits = {
  maxFileBytes: 100 * 1024 * 1024,
  inlineFileBytes: 256 * 1024,
  inlineRequestBytes: 1024 * 1024,
  entriesPerRequest: 500,
};

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * A file's bytes as text to send inline, when they round-trip exactly through a JSON string:
 * valid UTF-8 and no NUL (git's own mark of a binary file). Anything else goes as a base64 blob.
 */
export function inlineText(bytes: Uint8Array): string | undefined {
  if (bytes.includes(0)) return undefined;
  try {
    return utf8.decode(bytes);
  } catch {
    return undefined;
  }
}

/** What an entry costs a tree request: its inline content as JSON, in bytes (0 for an entry by id). */
export function inlineWeight(content: string | undefined): number {
  return content === undefined ? 0 : Buffer.byteLength(JSON.stringify(content));
}

/** Whether an entry of `weight` still fits a request that holds `entries` entries of `bytes` inline (an empty request takes anything). */
export function fitsRequest(request: { entries: number; bytes: number }, weight: number, limits: ApiCommitLimits): boolean {
  if (request.entries === 0) return true;
  return request.entries < limits.entriesPerRequest && request.bytes + weight <= limits.inlineRequestBytes;
}

/** `1.5 MiB`, `812 KiB`, `40 B`: a size as people read it. */
export function humanBytes(n: number): string {
  if (n >= 1024 * 1024) return `${(n / (1024 * 1024)).toFixed(1).replace(/\.0$/, '')} MiB`;
  if (n >= 1024) return `${Math.round(n / 1024)} KiB`;
  return `${n} B`;
}
