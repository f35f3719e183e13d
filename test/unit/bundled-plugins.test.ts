// The plugins that ship with roost live in plugins/<folder> (cli/plugins/bundled.ts). A registry
// written by a roost that kept them elsewhere (the metrics plugin in the extensions folder, before the
// bundled plugins had a home of their own) still runs them: a linked default's entry is pointed at this
// roost's folder on read, and keeps its `builtin:<command>` source.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readManifest } from '../../kernel/host/manifest.js';
import { bundledDir } from '../../cli/plugins/bundled.js';
import { COMMUNITY_PLUGINS, DEFAULT_PLUGINS } from '../../cli/plugins/defaults.js';
import { toEntry } from '../../cli/plugins/install.js';
import { readRegistry, writeRegistry } from '../../cli/plugins/registry.js';
import { packageRoot } from '../../lib/paths.js';

test('every bundled plugin has a folder in plugins/ and a cli-plugin-<command> manifest', async () => {
  for (const name of [...DEFAULT_PLUGINS, ...COMMUNITY_PLUGINS]) {
    const manifest = await readManifest(bundledDir(name));
    assert.equal(manifest.name, `cli-plugin-${name}`);
    assert.equal(manifest.server, undefined, `${name} is a CLI plugin, not a server extension`);
  }
  assert.equal(bundledDir('metrics'), join(packageRoot, 'plugins', 'churn'));
  assert.equal(existsSync(join(packageRoot, 'extensions', 'metrics')), false, 'extensions/ holds server extensions only');
});

test("a linked default installed from the old layout is found in this roost's folder", async () => {
  const home = await mkdtemp(join(tmpdir(), 'roost-bundled-'));
  try {
    const manifest = await readManifest(bundledDir('metrics'));
    const old = { ...toEntry(manifest, 'builtin:metrics', true), dir: join(packageRoot, 'extensions', 'metrics') };
    const cloned = { ...toEntry({ ...manifest, name: 'cli-plugin-mine' }, 'https://example.invalid/mine.git', false), dir: '/somewhere/mine' };
    await writeRegistry(home, { version: 1, plugins: [old, cloned] });
    const { plugins } = await readRegistry(home);
    const metrics = plugins.find((p) => p.name === 'cli-plugin-metrics')!;
    assert.equal(metrics.dir, join(packageRoot, 'plugins', 'churn'));
    assert.equal(metrics.source, 'builtin:metrics');
    assert.equal(plugins.find((p) => p.name === 'cli-plugin-mine')!.dir, '/somewhere/mine', 'a cloned plugin keeps its checkout');
  } finally {
    await rm(home, { recursive: true, force: true });
  }
});
