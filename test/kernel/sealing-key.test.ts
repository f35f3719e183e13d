// The sealing key: each extension gets its own, derived from the deployment's master key, which lives
// in ROOST_SEALING_KEY or in <dataDir>/sealing.key (0600, outside every database) and survives restarts.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { extensionKey, loadSealingKey } from '../../kernel/auth/sealing-key.js';
import { loadFixture } from '../fixtures/extensions/helpers.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

describe('the sealing key', () => {
  let server: TestServer;
  let dataDir: string;
  const askKey = async (s: TestServer) => (await s.api('POST', '/api/fx-probe/host', { body: { message: { type: 'secret', name: 'ROOST_EXTENSION_KEY' } } })).body;

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'roost-sealing-'));
    server = await startTestServer({ dataDir });
    assert.equal((await loadFixture(server, 'fx-probe')).status, 201);
  });
  after(async () => {
    await server?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('is refused to an extension without the secrets capability', async () => {
    const answer = await askKey(server);
    assert.equal(answer.error?.code, 'CAPABILITY_DENIED', JSON.stringify(answer));
  });

  it("gives the extension its own key, derived from the data dir's master key, the same after a restart", async () => {
    assert.equal((await server.api('POST', '/api/plugins/fx-probe/grant', { body: { capability: 'secrets' } })).status, 200);
    const { value } = await askKey(server);
    assert.match(value, /^[0-9a-f]{64}$/);
    const file = join(dataDir, 'sealing.key');
    assert.equal((await stat(file)).mode & 0o777, 0o600);
    const master = Buffer.from((await readFile(file, 'utf8')).trim(), 'hex');
    assert.equal(value, extensionKey(master, 'fx-probe'));
    assert.notEqual(value, extensionKey(master, 'memory'));

    await server.stop();
    server = await startTestServer({ dataDir });
    assert.equal((await askKey(server)).value, value);
  });

  it('takes the master key from ROOST_SEALING_KEY, and refuses a malformed one', async () => {
    const master = 'ab'.repeat(32);
    assert.deepEqual(await loadSealingKey(master, dataDir), Buffer.from(master, 'hex'));
    assert.deepEqual(await loadSealingKey(Buffer.alloc(32, 7).toString('base64'), dataDir), Buffer.alloc(32, 7));
    await assert.rejects(loadSealingKey('too-short', dataDir), /ROOST_SEALING_KEY must be 32 bytes as 64 hex digits or base64/);
  });
});
