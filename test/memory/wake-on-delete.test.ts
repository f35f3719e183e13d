// memory subscribes to agent.* but filters on deletions ([server.subscribe_when] in its plugin.toml):
// a created or renamed agent reaches the extensions with work to do (feed records it, credits opens
// the wallet) and neither wakes nor costs the lazy memory extension; a deletion wakes it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';

describe('an event filtered out by subscribe_when', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.cleanup());

  const stateOf = async (name: string): Promise<string> => (await server.api('GET', '/api/health')).body.extensions[name];
  const feedKinds = async (): Promise<string[]> => (await server.api('GET', '/api/feed/history')).body.items.map((i: { kind: string }) => i.kind);

  it('neither wakes nor reaches the lazy extension; a matching event does', async () => {
    assert.equal(await stateOf('memory'), 'idle');
    const created = await server.api('POST', '/api/agents', { body: { name: 'quiet', model: 'claude-sonnet-4-5' } });
    assert.equal(created.status, 201, created.text);
    const renamed = await server.api('PUT', `/api/agents/${created.body.id}`, { body: { name: 'quieter' } });
    assert.equal(renamed.status, 200, renamed.text);
    // The kernel hands an event to every subscriber as it is published: once feed has recorded both,
    // memory would have been woken too if it were to be.
    await waitFor('feed to record the creation and the rename', async () => ((await feedKinds()).includes('agent.updated') ? true : undefined));
    assert.equal(await stateOf('memory'), 'idle', 'a created or renamed agent does not wake memory');
    assert.equal((await server.api('DELETE', `/api/agents/${created.body.id}`)).status, 204);
    await waitFor('the deletion to wake memory', async () => ((await stateOf('memory')) === 'running' ? true : undefined));
  });
});
