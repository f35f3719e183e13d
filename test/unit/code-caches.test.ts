// The V8 code caches the build writes beside the bundles (scripts/code-caches.mjs) are taken by the node
// that runs each bundle, under the flags it runs with: V8 refuses a cache made under other flags or
// another version without a word, and the process then compiles from source, as slowly as before.
// One bundle of each kind: `roost serve`'s (no flags), a server extension's (its heap flags), a CLI
// plugin's and the roost command's plugin-command module's (no flags).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { extensionHeapFlags } from '../../kernel/host/heap-flags.js';
import { DEFAULT_SANDBOX_LIMITS } from '../../kernel/host/sandbox.js';
import { bundlesDir } from '../../lib/paths.js';

/** Whether a fresh node under `flags` compiles `file` with the cache beside it (without running it). */
function cacheTaken(file: string, flags: string[]): boolean {
  const probe = `const { readFileSync } = require('node:fs'); const { Script } = require('node:vm');
    const file = process.argv[1];
    const script = new Script(readFileSync(file, 'utf8'), { filename: file, cachedData: readFileSync(file + '.cache') });
    process.stdout.write(String(!script.cachedDataRejected));`;
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  return execFileSync(process.execPath, [...flags, '-e', probe, file], { env, encoding: 'utf8' }) === 'true';
}

describe('code caches', () => {
  it('are taken by the processes that run the bundles', () => {
    assert.equal(cacheTaken(join(bundlesDir, 'cli', 'main.code.js'), []), true, 'roost serve');
    assert.equal(cacheTaken(join(bundlesDir, 'extensions', 'agents', 'main.code.js'), extensionHeapFlags(DEFAULT_SANDBOX_LIMITS.memoryMb)), true, 'a server extension');
    assert.equal(cacheTaken(join(bundlesDir, 'plugins', 'sbom', 'main.code.js'), []), true, 'a CLI plugin');
    assert.equal(cacheTaken(join(bundlesDir, 'cli', 'plugin-command.code.js'), []), true, "the roost command's plugin commands");
  });
});
