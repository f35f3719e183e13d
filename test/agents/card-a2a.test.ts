// An agent's card names its A2A endpoint while the a2a extension is loaded, and the agents extension
// learns that from the kernel's route table: building a card never calls (so never starts) a2a, so calls
// between the two run one way only, a2a → agents.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/server.js';

describe('agents: the A2A endpoint on a card', () => {
  let server: TestServer;
  let agentId: string;
  const a2a = async () => ((await server.api('GET', '/api/plugins')).body.plugins as Array<{ name: string; state: string }>).find((p) => p.name === 'a2a')!;
  const card = async () => {
    const res = await server.api('GET', `/api/agents/${agentId}/agent-card`);
    assert.equal(res.status, 200, res.text);
    return res.body;
  };

  before(async () => {
    server = await startTestServer();
    const created = await server.api('POST', '/api/agents', { body: { name: 'carded' } });
    assert.equal(created.status, 201, created.text);
    agentId = created.body.id;
  });
  after(() => server.cleanup());

  it('names the endpoint of the loaded a2a extension without starting it', async () => {
    assert.notEqual((await a2a()).state, 'running');
    const body = await card();
    assert.match(body.url, new RegExp(`/a2a/agents/${agentId}$`));
    assert.equal(body.preferredTransport, 'JSONRPC');
    assert.equal(body.protocolVersion, '0.3.0');
    assert.notEqual((await a2a()).state, 'running');
  });

  it('names none while a2a is unloaded, and names it again once a2a is loaded', async () => {
    assert.equal((await server.api('POST', '/api/plugins/a2a/unload')).status, 200);
    const without = await card();
    assert.equal(without.url, undefined);
    assert.equal(without.preferredTransport, undefined);
    assert.equal(without.protocolVersion, '0.3.0');
    const loaded = await server.api('POST', '/api/plugins/load', { body: { name: 'a2a' } });
    assert.ok(loaded.status === 200 || loaded.status === 201, loaded.text);
    assert.match((await card()).url, new RegExp(`/a2a/agents/${agentId}$`));
  });
});
