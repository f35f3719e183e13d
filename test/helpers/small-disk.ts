// A small file system of the test's own, to fill to the last byte: a tmpfs mounted on a new folder
// (tests run as root; where mounting is not allowed, the reason to skip).
import { execFileSync } from 'node:child_process';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Mounts a tmpfs of `size` (mount's notation: "24m") on a new folder, or says why it cannot. */
export async function mountSmallDisk(size: string): Promise<{ dir: string } | { skip: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'roost-small-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'pipe' });
    return { dir };
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    return { skip: `cannot mount a tmpfs here: ${String((err as { stderr?: Buffer }).stderr ?? err).trim()}` };
  }
}

export async function unmountSmallDisk(dir: string): Promise<void> {
  execFileSync('umount', [dir]);
  await rm(dir, { recursive: true, force: true });
}

/** Writes `path` until the file system refuses with ENOSPC: big chunks, then single blocks. */
export async function fillDisk(path: string): Promise<void> {
  const handle = await open(path, 'w');
  try {
    for (const size of [1024 * 1024, 4096]) {
      const chunk = Buffer.alloc(size, 1);
      for (;;) {
        try {
          await handle.write(chunk);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'ENOSPC') break;
          throw err;
        }
      }
    }
  } finally {
    await handle.close().catch(() => undefined);
  }
}
