// What a folder takes on disk, as du counts it: allocated blocks (a sparse file counts what it holds),
// each hard-linked file once, symbolic links not followed.
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';

export async function diskUsageBytes(dir: string): Promise<number> {
  const seen = new Set<string>();
  let total = 0;
  const walk = async (path: string): Promise<void> => {
    const stat = await lstat(path).catch(() => undefined);
    if (!stat) return; // removed while we walked
    if (stat.nlink > 1 && !stat.isDirectory()) {
      const id = `${stat.dev}:${stat.ino}`;
      if (seen.has(id)) return;
      seen.add(id);
    }
    total += stat.blocks * 512;
    if (!stat.isDirectory()) return;
    const entries = await readdir(path).catch(() => [] as string[]);
    for (const entry of entries) await walk(join(path, entry));
  };
  await walk(dir);
  return total;
}
