// When a folder last changed, cheaply: the newest modification time of its
// entries, found by walking it. The stall guard asks only after an agent has been silent for a
// whole stall period, so a walk every few minutes at most; folders that only tools fill
// (node_modules, git's object store) are skipped, and the walk stops after a bounded number of
// entries. A change there is still seen as a change of what the agent works on: a new file
// changes its folder's time, a commit changes .git's index and refs.
import type { Dirent } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { basename, join } from 'node:path';

/** Folders only tools fill: dependencies, and git's object store (its index and refs still count). */
const skipped = (folder: string, name: string): boolean => name === 'node_modules' || (name === 'objects' && basename(folder) === '.git');

/** The newest mtime (ms since the epoch) of `root` and what it holds, up to `limit` entries; 0 when unreadable. */
export async function latestChange(root: string, limit = 50_000): Promise<number> {
  let latest = 0;
  let seen = 0;
  const folders = [root];
  while (folders.length > 0 && seen < limit) {
    const folder = folders.pop()!;
    let entries: Dirent[];
    try {
      const info = await lstat(folder);
      latest = Math.max(latest, info.mtimeMs);
      entries = await readdir(folder, { withFileTypes: true });
    } catch {
      continue; // gone, or not ours to read
    }
    for (const entry of entries) {
      if (++seen > limit) break;
      const path = join(folder, entry.name);
      if (entry.isDirectory()) {
        if (!skipped(folder, entry.name)) folders.push(path);
        continue;
      }
      try {
        const info = await lstat(path);
        latest = Math.max(latest, info.mtimeMs);
      } catch {
        // Gone while we looked.
      }
    }
  }
  return latest;
}
