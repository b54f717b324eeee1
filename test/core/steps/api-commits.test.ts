import { describe, expect, it } from 'vitest';
import { fitsRequest, GITHUB_LIMITS, humanBytes, inlineText, inlineWeight } from '../../../core/steps/api-commits.ts';

describe('inlineText', () => {
  it('gives the text of bytes that round-trip exactly through a JSON string, and nothing for any other', () => {
    expect(inlineText(Buffer.from('héllo\r\n\tworld\n'))).toBe('héllo\r\n\tworld\n');
    // A byte-order mark is part of the file: kept.
    expect(inlineText(Buffer.from([0xef, 0xbb, 0xbf, 0x61]))).toBe('\uFEFFa');
    // NUL (git's mark of a binary file), and bytes that are not UTF-8 (a lone continuation byte, Latin-1): a blob.
    expect(inlineText(Buffer.from([0x61, 0x00, 0x62]))).toBeUndefined();
    expect(inlineText(Buffer.from([0x61, 0x80]))).toBeUndefined();
    expect(inlineText(Buffer.from('caf\xe9', 'latin1'))).toBeUndefined();
    for (const text of ['a\u2028b', '"quoted"\\', '😀']) expect(JSON.parse(JSON.stringify(inlineText(Buffer.from(text))))).toBe(text);
  });
});

describe('fitsRequest', () => {
  it('counts inline content as JSON, and entries, against a request; an empty request takes anything', () => {
    expect(inlineWeight(undefined)).toBe(0);
    expect(inlineWeight('a"b')).toBe(6);
    const limits = { ...GITHUB_LIMITS, inlineRequestBytes: 10, entriesPerRequest: 2 };
    expect(fitsRequest({ entries: 0, bytes: 0 }, 1000, limits)).toBe(true);
    expect(fitsRequest({ entries: 1, bytes: 4 }, 6, limits)).toBe(true);
    expect(fitsRequest({ entries: 1, bytes: 5 }, 6, limits)).toBe(false);
    expect(fitsRequest({ entries: 2, bytes: 0 }, 0, limits)).toBe(false);
  });

  it("keeps GitHub's limits: no file over 100 MiB, 1 MiB inline per request", () => {
    expect(GITHUB_LIMITS.maxFileBytes).toBe(104_857_600);
    expect(GITHUB_LIMITS.inlineRequestBytes).toBe(1_048_576);
    expect([humanBytes(40), humanBytes(300_000), humanBytes(104_857_600), humanBytes(1_572_864)]).toEqual(['40 B', '293 KiB', '100 MiB', '1.5 MiB']);
  });
});
