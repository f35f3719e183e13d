// An extension that announces events declares the `events` capability: without it the kernel refuses
// every emit (a warning in the log, nothing more), so whatever waits for the event never hears it.
// plans once emitted plans.changed without it, and the kernel's cache kept old plans until a restart.
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { Manifest } from '../../kernel/host/manifest.js';
import { readManifestDir } from '../../kernel/host/manifest-dirs.js';

/** The source files of an extension's folder that call `emit(` on the host client. */
async function emitters(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { recursive: true })) {
    if (!entry.endsWith('.ts') || entry.includes('node_modules')) continue;
    if (/\.emit\(/.test(await readFile(join(dir, entry), 'utf8'))) found.push(entry);
  }
  return found;
}

describe('the events capability', () => {
  it('is declared by every extension that emits', async () => {
    const manifests = (await readManifestDir(join(process.cwd(), 'extensions'))).map(({ manifest }) => manifest).filter((m): m is Manifest => !(m instanceof Error));
    assert.ok(manifests.length > 20, 'the bundled extensions were read');
    const missing: string[] = [];
    for (const manifest of manifests) {
      const files = await emitters(manifest.dir);
      if (files.length > 0 && manifest.capabilities.events !== true) missing.push(`${manifest.name} (${files.join(', ')})`);
    }
    assert.deepEqual(missing, [], 'these emit without the events capability');
  });
});
