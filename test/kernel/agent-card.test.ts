// The server's A2A card at /.well-known/agent-card.json, served by the a2a extension: public (discovery
// comes before any key), one skill per loaded extension, and no endpoint advertised that does not answer
// (with the a2a extension unloaded there is no card at all).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/server.js';

describe('/.well-known/agent-card.json', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ env: { ROOST_API_KEY: 'rk_card_owner_key_0123456789abcdef', ROOST_LOCAL_AUTH: 'required' } });
  });
  after(() => server.cleanup());

  it('describes the server to anyone, one skill per extension, with its tools as tags', async () => {
    const card = await server.api('GET', '/.well-known/agent-card.json');
    assert.equal(card.status, 200, card.text);
    assert.equal(card.body.name, 'Roost');
    assert.equal(card.body.protocolVersion, '0.3.0');
    assert.match(card.body.version, /^\d+\.\d+\.\d+/);
    assert.equal(card.body.provider.url, server.url);
    const projects = card.body.skills.find((s: { id: string }) => s.id === 'projects');
    assert.ok(projects.tags.includes('svc_list_projects'));
    assert.match(projects.description, /Projects/);
    assert.ok(card.body.skills.some((s: { id: string }) => s.id === 'sessions'));
  });

  it('advertises only what answers: the A2A task endpoint and the REST, MCP and WebSocket addresses are the server\'s', async () => {
    const card = (await server.api('GET', '/.well-known/agent-card.json')).body;
    assert.equal(card.url, `${server.url}/a2a`);
    assert.equal(card.preferredTransport, 'JSONRPC');
    assert.deepEqual(card.additionalInterfaces, [{ url: `${server.url}/a2a`, transport: 'JSONRPC' }]);
    assert.deepEqual(card.metadata, {
      rest: `${server.url}/api`,
      mcp: `${server.url}/mcp`,
      websocket: `${server.url.replace('http', 'ws')}/ws`,
      a2a: { send: `${server.url}/a2a/tasks/send`, task: `${server.url}/a2a/tasks/{id}` },
    });
    assert.equal((await fetch(`${card.metadata.rest}/health`)).status, 200);
    const mcp = await fetch(card.metadata.mcp, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' });
    assert.equal(mcp.status, 401, 'the MCP endpoint answers (and asks for a key)');
    const send = await fetch(card.metadata.a2a.send, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    assert.equal(send.status, 401, 'the A2A REST endpoint answers (and asks for a key)');
    // The card's url speaks its preferredTransport: a JSON-RPC request there gets a JSON-RPC answer.
    const call = (key?: string) => fetch(card.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
      body: JSON.stringify({ jsonrpc: '2.0', id: 'probe', method: 'tasks/get', params: { id: 'no-such-task' } }),
    });
    assert.equal((await call()).status, 401, 'and asks for a key');
    const answered = await call('rk_card_owner_key_0123456789abcdef');
    assert.equal(answered.status, 200);
    assert.deepEqual(await answered.json(), { jsonrpc: '2.0', id: 'probe', error: { code: -32001, message: 'Task not found: no-such-task' } });
  });

  it('names no A2A endpoint while no extension serves it: the card goes with the a2a extension', async () => {
    assert.equal((await server.api('POST', '/api/plugins/a2a/unload', { key: 'rk_card_owner_key_0123456789abcdef' })).status, 200);
    // The card is the a2a extension's: with it unloaded there is no card, and so no endpoint named that does not answer.
    const card = await server.api('GET', '/.well-known/agent-card.json', { key: 'rk_card_owner_key_0123456789abcdef' });
    assert.equal(card.status, 404, card.text);
    // Nor does an agent's card.
    const agent = await server.api('POST', '/api/agents', { key: 'rk_card_owner_key_0123456789abcdef', body: { name: 'uncarded' } });
    assert.equal(agent.status, 201, agent.text);
    const agentCard = await server.api('GET', `/api/agents/${agent.body.id}/agent-card`, { key: 'rk_card_owner_key_0123456789abcdef' });
    assert.equal(agentCard.status, 200);
    assert.equal(agentCard.body.url, undefined);
    assert.equal(agentCard.body.preferredTransport, undefined);
  });
});
