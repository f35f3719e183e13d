// `system` (restart, metrics and tenants in one grant) was split: on an upgraded server an extension
// that held it keeps only the parts its manifest asks for, so billing can no longer restart the server.
// A bundled extension whose newer manifest asks for more gets it on upgrade, unless it was revoked.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { loadFixture, pluginInfo } from '../fixtures/extensions/helpers.js';
import { sqliteFilesOnly, startTestServer, type TestServer } from '../helpers/server.js';
import { changeRows, selectRows } from './sqlite-file.js';

describe('the system grant on upgrade', { skip: sqliteFilesOnly, timeout: 60_000 }, () => {
  let server: TestServer | undefined;
  after(() => server?.cleanup());

  it('becomes what each extension\'s manifest asks for of restart, metrics and tenants', async () => {
    server = await startTestServer();
    assert.equal((await loadFixture(server, 'fx-probe')).status, 201);
    const { dataDir } = server;
    await server.stop();
    // The grants as a server from before the split left them.
    const kernelDb = join(dataDir, 'kernel.sqlite');
    await changeRows(kernelDb, "DELETE FROM extension_grants WHERE capability IN ('restart', 'metrics', 'tenants')");
    for (const name of ['billing', 'operations', 'fx-probe']) {
      await changeRows(kernelDb, "INSERT INTO extension_grants (extension, capability, granted, updated_at) VALUES (?, 'system', 1, '2026-01-01T00:00:00.000Z')", [name]);
    }
    server = await startTestServer({ dataDir });
    const granted = async (name: string) => (await pluginInfo(server!, name)).capabilities.granted.filter((c: string) => ['system', 'restart', 'metrics', 'tenants'].includes(c)).sort();
    assert.deepEqual(await granted('billing'), ['tenants']);
    assert.deepEqual(await granted('operations'), ['metrics', 'restart']);
    assert.deepEqual(await granted('fx-probe'), [], 'it asks for none of them');
    const left = await selectRows(kernelDb, "SELECT extension FROM extension_grants WHERE capability = 'system' AND extension IN ('billing', 'operations', 'fx-probe')");
    assert.deepEqual(left, [], 'no system grant is left behind');
  });

  it('gives a bundled extension what its newer manifest asks for, but not what an operator revoked, nor a foreign one more', async () => {
    const { dataDir } = server!;
    await server!.stop();
    // As a server from before operations asked for tokens and network left its grants, network revoked since.
    const kernelDb = join(dataDir, 'kernel.sqlite');
    await changeRows(kernelDb, "DELETE FROM extension_grants WHERE extension = 'operations' AND capability = 'tokens'");
    await changeRows(kernelDb, "UPDATE extension_grants SET granted = 0 WHERE extension = 'operations' AND capability = 'network'");
    await changeRows(kernelDb, "DELETE FROM extension_grants WHERE extension = 'fx-probe' AND capability = 'events'");
    server = await startTestServer({ dataDir });
    const granted = (await pluginInfo(server, 'operations')).capabilities.granted as string[];
    assert.ok(granted.includes('tokens'), granted.join(', '));
    assert.ok(!granted.includes('network'), 'a revoked capability stays revoked');
    assert.ok(!((await pluginInfo(server, 'fx-probe')).capabilities.granted as string[]).includes('events'), 'an extension from elsewhere is granted nothing new');
  });
});
