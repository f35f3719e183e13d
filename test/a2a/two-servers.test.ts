// A2A between two real Roost servers: B registered as a remote of A's instance tenant (A lets its owner
// reach loopback, where B listens, by opt-in); A's agents discover B, list its agents and run tasks on
// them over the JSON-RPC binding B's card names, and B runs them in its own sessions. Another tenant of
// A reaches public addresses only.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { callTool, mcpClient, registerTenant, type Tenant } from '../agents/support.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { storedText } from '../helpers/stored.js';
import { namedAgent, sessionToken, startMessagingServer, type MessagingServer } from '../messaging/support.js';
import { FIXTURES } from '../agents/support.js';

describe('a2a: two servers', () => {
  let a: MessagingServer;
  let b: TestServer;
  let otherA: Tenant;
  let tb: Tenant;
  let oracle: { id: string; name: string };
  let asker: Client;
  let outsider: Client;
  let odd: Server;
  let oddUrl: string;
  let remoteId: string;
  /** The Authorization header of each request the odd server got (null: none). */
  const oddAuthorization: Array<string | null> = [];

  before(async () => {
    a = await startMessagingServer({ env: { ROOST_EXT_A2A_ALLOW_LOOPBACK: '1', ROOST_EXT_MARKETPLACE_ALLOW_LOOPBACK: '1' } });
    // B shares A's fake model provider; it is another server, with its own data, keys and tenants.
    b = await startTestServer({ env: { ANTHROPIC_API_KEY: 'test', ANTHROPIC_BASE_URL: a.anthropic.url, ROOST_EXTENSION_DIRS: FIXTURES } });
    otherA = await registerTenant(a.server, 'a2a-home-other');
    tb = await registerTenant(b, 'a2a-away');
    oracle = await namedAgent(b, tb.operator, 'oracle');
    await namedAgent(b, tb.operator, 'scribe');
    const askerAgent = await namedAgent(a.server, undefined, 'asker');
    asker = await mcpClient(a.server, await sessionToken(a.server, undefined, askerAgent.id, null));
    const outsiderAgent = await namedAgent(a.server, otherA.operator, 'outsider');
    outsider = await mcpClient(a.server, await sessionToken(a.server, otherA.operator, outsiderAgent.id, null));
    // A server that answers what no agent card should: a redirect, a body too big, JSON that is no card.
    odd = createServer((req, res) => {
      oddAuthorization.push(req.headers.authorization ?? null);
      if (req.url === '/redirect') return res.writeHead(302, { location: 'http://169.254.169.254/' }).end();
      if (req.url === '/big') return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ name: 'big', skills: [], pad: 'x'.repeat(300_000) }));
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ hello: 'world' }));
    });
    await new Promise<void>((resolve) => odd.listen(0, '127.0.0.1', resolve));
    oddUrl = `http://127.0.0.1:${(odd.address() as AddressInfo).port}`;
  });
  after(async () => {
    await Promise.all([asker?.close(), outsider?.close()]);
    await new Promise((resolve) => odd?.close(resolve));
    await b?.cleanup();
    await a?.close();
  });

  it('registers B as a remote of A: owner only, within the tenant\'s reach, the key sealed and never answered', async () => {
    assert.equal((await a.server.api('POST', '/api/a2a/remotes', { key: otherA.operator, body: { name: 'b', url: b.url, apiKey: tb.operator } })).status, 403);
    // Another tenant may not point a remote at loopback (nor at private or metadata addresses).
    for (const url of [b.url, `http://localhost:${b.port}`, 'http://10.0.0.3', 'http://169.254.169.254']) {
      const res = await a.server.api('POST', '/api/a2a/remotes', { key: otherA.owner, body: { name: 'b', url, apiKey: tb.operator } });
      assert.equal(res.status, 403, url);
      assert.match(res.body.error, /only public addresses may be reached from here/);
    }
    // Nor may anyone point one at A itself.
    const self = await a.server.api('POST', '/api/a2a/remotes', { body: { name: 'self', url: a.server.url } });
    assert.equal(self.status, 403);
    assert.match(self.body.error, /is this machine \(a loopback address\)/);
    for (const body of [{ name: 'b' }, { name: 'b', url: 'ftp://example.com' }, { name: 'b', url: 'not a url' }, { name: '', url: b.url }, { name: 'b', url: 'http://user:pw@example.com' }, { name: 'b', url: b.url, apiKey: '' }, { name: 'b', url: b.url, extra: 1 }]) {
      assert.equal((await a.server.api('POST', '/api/a2a/remotes', { body })).status, 400, JSON.stringify(body));
    }
    const created = await a.server.api('POST', '/api/a2a/remotes', { body: { name: 'b', url: `${b.url}/`, apiKey: tb.operator } });
    assert.equal(created.status, 201, created.text);
    remoteId = created.body.id;
    assert.equal(created.body.url, b.url);
    assert.equal(created.body.hasApiKey, true);
    assert.doesNotMatch(JSON.stringify(created.body), new RegExp(tb.operator));
    assert.equal((await a.server.api('POST', '/api/a2a/remotes', { body: { name: 'b', url: b.url } })).status, 409);

    const listed = await a.server.api('GET', '/api/a2a/remotes');
    assert.deepEqual(listed.body.remotes.map((r: any) => r.name), ['b']);
    assert.doesNotMatch(listed.text, new RegExp(tb.operator));
    assert.equal((await a.server.api('GET', `/api/a2a/remotes/${remoteId}`, { key: otherA.owner })).status, 404);
    assert.equal((await a.server.api('PUT', `/api/a2a/remotes/${remoteId}`, { key: otherA.owner, body: { name: 'mine' } })).status, 404);
    assert.equal((await a.server.api('DELETE', `/api/a2a/remotes/${remoteId}`, { key: otherA.owner })).status, 404);
    assert.equal((await a.server.api('GET', '/api/a2a/remotes', { key: otherA.viewer })).body.remotes.length, 0);

    const renamed = await a.server.api('PUT', `/api/a2a/remotes/${remoteId}`, { body: { name: 'server-b' } });
    assert.equal(renamed.status, 200, renamed.text);
    assert.equal(renamed.body.hasApiKey, true);
    assert.equal((await a.server.api('PUT', `/api/a2a/remotes/${remoteId}`, { body: {} })).status, 400);
    assert.equal((await a.server.api('PUT', `/api/a2a/remotes/${remoteId}`, { body: { url: a.server.url } })).status, 403);
    assert.equal((await a.server.api('PUT', `/api/a2a/remotes/${remoteId}`, { key: otherA.operator, body: { name: 'x' } })).status, 403, 'owners only');
  });

  it('keeps the remote\'s key out of what A stores', async () => {
    const stored = await storedText(a.server, 'a2a');
    assert.ok(stored.includes(remoteId), 'the remote is stored in what was read');
    assert.equal(stored.includes(tb.operator), false, 'its key only sealed');
  });

  it('svc_invoke_remote_agent from A runs the task on B over the JSON-RPC binding B\'s card names', async () => {
    const result = await callTool(asker, 'svc_invoke_remote_agent', { url: b.url, message: 'hello from A', agent: 'oracle' });
    assert.equal(result.isError, false, result.text);
    assert.equal(result.value.reply, 'oracle heard: hello from A');
    assert.equal(result.value.state, 'completed');
    assert.equal(result.value.remote.name, 'server-b');
    // The task and its session are B's, in the tenant of the key A holds.
    const onB = await b.api('GET', `/a2a/tasks/${result.value.taskId}`, { key: tb.viewer });
    assert.equal(onB.status, 200);
    assert.equal(onB.body.metadata.agentId, oracle.id);
    assert.equal((await b.api('GET', `/api/sessions/${onB.body.metadata.sessionId}`, { key: tb.viewer })).body.agentId, oracle.id);
    assert.equal((await a.server.api('GET', `/a2a/tasks/${result.value.taskId}`)).status, 404, 'A has no such task');

    const refused = await callTool(asker, 'svc_invoke_remote_agent', { url: b.url, message: 'x', agent: 'nobody' });
    assert.equal(refused.isError, true);
    // B's card offers A2A 1.0, so A speaks it (SendMessage, GetTask).
    assert.match(refused.text, /remote server-b refused SendMessage \(-32602\): Invalid params: agent nobody not found/);
    const unregistered = await callTool(outsider, 'svc_invoke_remote_agent', { url: b.url, message: 'x', agent: 'oracle' });
    assert.equal(unregistered.isError, true);
    assert.match(unregistered.text, /no remote server is registered for http:\/\/127\.0\.0\.1:\d+/);
    for (const args of [{ url: b.url }, { message: 'x' }, { url: 'file:///etc/passwd', message: 'x' }, { url: b.url, message: 'x', timeout_seconds: 0 }, { url: b.url, message: 'x', more: 1 }]) {
      const bad = await callTool(asker, 'svc_invoke_remote_agent', args);
      assert.equal(bad.isError, true, JSON.stringify(args));
    }
  });

  it('B\'s cards name endpoints that answer: the server\'s /a2a and each agent\'s /a2a/agents/:id', async () => {
    const card = (await b.api('GET', '/.well-known/agent-card.json')).body;
    assert.deepEqual([card.url, card.preferredTransport, card.protocolVersion], [`${b.url}/a2a`, 'JSONRPC', '0.3.0']);
    const agentCard = (await b.api('GET', `/api/agents/${oracle.id}/agent-card`, { key: tb.viewer })).body;
    assert.deepEqual([agentCard.url, agentCard.preferredTransport], [`${b.url}/a2a/agents/${oracle.id}`, 'JSONRPC']);
    const sent = await fetch(agentCard.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${tb.operator}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'message/send', params: { message: { kind: 'message', role: 'user', messageId: 'm-card', parts: [{ kind: 'text', text: 'via the card' }] }, configuration: { blocking: true } } }),
    });
    assert.equal(sent.status, 200);
    const answer = await sent.json();
    assert.equal(answer.id, 7);
    assert.equal(answer.result.status.state, 'completed', JSON.stringify(answer));
    assert.deepEqual(answer.result.artifacts[0].parts, [{ kind: 'text', text: 'oracle heard: via the card' }]);
  });

  it('svc_discover_agent reads and checks cards, and refuses what it must', async () => {
    const server = await callTool(asker, 'svc_discover_agent', { url: b.url });
    assert.equal(server.isError, false, server.text);
    assert.equal(server.value.card.name, 'Roost');
    assert.equal(server.value.card.url, `${b.url}/a2a`);
    assert.equal(server.value.url, `${b.url}/.well-known/agent-card.json`);
    // An agent's own card needs B's key: A sends it because B is a registered remote.
    const agent = await callTool(asker, 'svc_discover_agent', { url: `${b.url}/api/agents/${oracle.id}/agent-card` });
    assert.equal(agent.isError, false, agent.text);
    assert.equal(agent.value.card.name, 'oracle');
    assert.equal(agent.value.remote.name, 'server-b');
    // Another tenant's agent reaches public addresses only: B, on loopback, is out of its reach.
    for (const url of [`${b.url}/api/agents/${oracle.id}/agent-card`, b.url, 'http://10.2.3.4/', 'http://[::1]/']) {
      const refused = await callTool(outsider, 'svc_discover_agent', { url });
      assert.equal(refused.isError, true, url);
      assert.match(refused.text, /only public addresses may be reached from here/, url);
    }

    for (const [url, pattern] of [
      ['ftp://example.com/card.json', /must be http or https, not ftp/],
      ['javascript:alert(1)', /must be http or https/],
      ['not a url', /is not a URL/],
      ['http://169.254.169.254/latest/meta-data', /link-local or cloud-metadata address/],
      ['http://[fe80::1]/', /link-local or cloud-metadata address/],
      ['http://[::ffff:169.254.169.254]/', /link-local or cloud-metadata address/],
      ['http://metadata.google.internal/', /link-local or cloud-metadata address/],
      [a.server.url, /is this machine \(a loopback address\)/],
      [`http://localhost:${a.server.port}/api/agents`, /localhost is this machine/],
      [`${oddUrl}/redirect`, /redirects are not followed/],
      [`${oddUrl}/big`, /more than 262144 bytes/],
      [`${oddUrl}/plain`, /is not an A2A agent card: name must be a string/],
      ['http://127.0.0.1:1/', /failed: ECONNREFUSED/],
    ] as Array<[string, RegExp]>) {
      const refused = await callTool(asker, 'svc_discover_agent', { url });
      assert.equal(refused.isError, true, url);
      assert.match(refused.text, pattern, url);
    }
    assert.equal((await callTool(asker, 'svc_discover_agent', {})).isError, true);
  });

  it('svc_agent_directory lists the agents of registered remotes with their cards', async () => {
    const listed = await callTool(asker, 'svc_agent_directory', {});
    assert.equal(listed.isError, false, listed.text);
    assert.equal(listed.value.remotes.length, 1);
    const [remote] = listed.value.remotes;
    assert.equal(remote.remote.name, 'server-b');
    assert.deepEqual(remote.agents.map((x: any) => x.name).sort(), ['oracle', 'scribe']);
    assert.equal(remote.agents.find((x: any) => x.name === 'oracle').card.metadata.agentId, oracle.id);

    // Cached for a minute; refresh fetches again, and sees B's new agent.
    await namedAgent(b, tb.operator, 'newcomer');
    assert.equal((await callTool(asker, 'svc_agent_directory', {})).value.remotes[0].agents.length, 2);
    assert.equal((await callTool(asker, 'svc_agent_directory', { refresh: true })).value.remotes[0].agents.length, 3);
    assert.deepEqual((await callTool(outsider, 'svc_agent_directory', {})).value, { remotes: [], federated: { agents: [] } });
    assert.equal((await callTool(asker, 'svc_agent_directory', { refresh: 'yes' })).isError, true);

    // A remote whose key is wrong is listed with the reason, not dropped silently.
    assert.equal((await a.server.api('PUT', `/api/a2a/remotes/${remoteId}`, { body: { apiKey: 'roost_wrong_key' } })).status, 200);
    const broken = await callTool(asker, 'svc_agent_directory', {});
    assert.match(broken.value.remotes[0].error, /answered 40[13] for its agent list/);
    // Without a key (it is optional) A asks anyway. B is on the same machine, so a keyless call is its
    // local owner's: B's own tenant, where no oracle lives.
    assert.equal((await a.server.api('PUT', `/api/a2a/remotes/${remoteId}`, { body: { apiKey: null } })).status, 200);
    const keyless = await callTool(asker, 'svc_agent_directory', { refresh: true });
    assert.equal(keyless.value.remotes[0].error, undefined, JSON.stringify(keyless.value));
    assert.deepEqual(keyless.value.remotes[0].agents, []);
    const invoked = await callTool(asker, 'svc_invoke_remote_agent', { url: b.url, message: 'x', agent: 'oracle' });
    assert.match(invoked.text, /agent oracle not found/);
    assert.equal((await a.server.api('DELETE', `/api/a2a/remotes/${remoteId}`)).status, 204);
    assert.deepEqual((await callTool(asker, 'svc_agent_directory', {})).value, { remotes: [], federated: { agents: [] } });
  });

  it('svc_agent_directory also lists the agents other servers offer in the marketplace federation', async () => {
    const offered = await b.api('POST', '/api/marketplace/listings', { key: tb.operator, body: { kind: 'agent', name: 'Oracle for hire', description: 'Answers as the oracle', agentId: oracle.id, tags: ['answers'], visibility: 'public' } });
    assert.equal(offered.status, 201, offered.text);
    const bundle = await b.api('POST', '/api/marketplace/listings', { key: tb.operator, body: { kind: 'skill_bundle', name: 'Not an agent', description: 'A bundle', visibility: 'public' } });
    assert.equal(bundle.status, 201, bundle.text);
    assert.equal((await a.server.api('POST', '/api/marketplace/federation/instances', { body: { url: b.url } })).status, 201);
    const synced = await a.server.api('POST', '/api/marketplace/federation/sync');
    assert.equal(synced.body.instances[0].status, 'ok', synced.text);

    const listed = await callTool(asker, 'svc_agent_directory', {});
    assert.equal(listed.isError, false, listed.text);
    assert.equal(listed.value.federated.error, undefined);
    assert.deepEqual(
      listed.value.federated.agents.map((x: any) => [x.name, x.instance, x.listingId, x.tags]),
      [['Oracle for hire', b.url, offered.body.id, ['answers']]],
      'agents only, never another kind of listing',
    );
    assert.deepEqual((await callTool(outsider, 'svc_agent_directory', {})).value.federated, { agents: [] }, 'federation is per tenant');

    // Without the marketplace, the directory still answers its remotes and says why the rest is missing.
    assert.equal((await a.server.api('POST', '/api/plugins/marketplace/unload')).status, 200);
    try {
      const without = await callTool(asker, 'svc_agent_directory', {});
      assert.equal(without.isError, false, without.text);
      assert.deepEqual(without.value.federated, { agents: [], error: 'the marketplace extension is not loaded' });
    } finally {
      assert.equal((await a.server.api('POST', '/api/plugins/load', { body: { name: 'marketplace' } })).status, 201);
    }
  });

  it('calls a remote registered without a key with no Authorization header at all', async () => {
    const created = await a.server.api('POST', '/api/a2a/remotes', { body: { name: 'odd', url: oddUrl } });
    assert.equal(created.status, 201, created.text);
    oddAuthorization.length = 0;
    const result = await callTool(asker, 'svc_invoke_remote_agent', { url: oddUrl, message: 'x' });
    assert.match(result.text, /is not an A2A agent card/, 'it went as far as reading the card');
    assert.deepEqual(oddAuthorization, [null]);
    assert.equal((await a.server.api('DELETE', `/api/a2a/remotes/${created.body.id}`)).status, 204);
  });
});
