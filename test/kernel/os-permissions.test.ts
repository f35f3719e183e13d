import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { repoRoot } from '../helpers/paths.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

describe("Node's permission model enforces an extension's grants", () => {
  let server: TestServer;
  let outside: string;
  before(async () => {
    server = await startTestServer();
    // In an allowed root (the test server's ROOST_ALLOWED_ROOTS), which the filesystem grant binds into the sandbox.
    outside = await mkdtemp(join(tmpdir(), 'roost-permission-test-'));
    const loaded = await server.api('POST', '/api/plugins/load', { body: { path: join(repoRoot, 'test/fixtures/os-permissions/probe') } });
    assert.equal(loaded.status, 201, loaded.text);
  });
  after(async () => {
    await server.cleanup();
    await rm(outside, { recursive: true, force: true });
  });

  it('cannot write outside its data folder or start processes without the grants', async () => {
    const target = join(outside, 'escaped.txt');
    const write = await server.api('POST', '/api/permission-probe/write', { body: { path: target } });
    assert.deepEqual(write.body, { allowed: false, code: 'ERR_ACCESS_DENIED' });
    assert.equal(existsSync(target), false);
    const spawn = await server.api('POST', '/api/permission-probe/spawn', { body: {} });
    assert.deepEqual(spawn.body, { allowed: false, code: 'ERR_ACCESS_DENIED' });
  });

  it('may after filesystem and exec are granted and it restarts', async () => {
    assert.equal((await server.api('POST', '/api/plugins/permission-probe/grant', { body: { capability: 'filesystem' } })).status, 200);
    assert.equal((await server.api('POST', '/api/plugins/permission-probe/grant', { body: { capability: 'exec' } })).status, 200);
    assert.equal((await server.api('POST', '/api/plugins/permission-probe/unload')).status, 200);
    assert.equal((await server.api('POST', '/api/plugins/load', { body: { name: 'permission-probe' } })).status, 201);
    const target = join(outside, 'allowed.txt');
    const write = await server.api('POST', '/api/permission-probe/write', { body: { path: target } });
    assert.deepEqual(write.body, { allowed: true });
    assert.equal(existsSync(target), true);
    const spawn = await server.api('POST', '/api/permission-probe/spawn', { body: {} });
    assert.deepEqual(spawn.body, { allowed: true });
  });
});
