import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestServer } from '../helpers/server.js';
import { callTool, createAgent, mcpClient, registerTenant, startServer, type Tenant } from './support.js';

describe('agents: tenants never see each other', () => {
  let server: TestServer;
  let a: Tenant;
  let b: Tenant;
  let agentA: any;
  let bundleA: any;
  before(async () => {
    server = await startServer();
    a = await registerTenant(server, 'org-a');
    b = await registerTenant(server, 'org-b');
    agentA = await createAgent(server, a.owner, { name: 'shared-name', mcp_tool_permissions: ['svc_grant_credits'] });
    bundleA = (await server.api('POST', '/api/skill-bundles', { key: a.owner, body: { name: 'a-kit', tools: ['Read'] } })).body;
  });
  after(() => server.cleanup());

  it('keeps agents apart: lists, reads, writes, sub-resources, and names may repeat across tenants', async () => {
    const agentB = await createAgent(server, b.owner, { name: 'shared-name' });
    assert.deepEqual((await server.api('GET', '/api/agents', { key: b.viewer })).body.agents.map((x: any) => x.id), [agentB.id]);
    assert.equal((await server.api('GET', `/api/agents?wallet=${agentA.wallet}`, { key: b.owner })).body.total, 0);
    for (const [method, path, body] of [
      ['GET', `/api/agents/${agentA.id}`],
      ['PUT', `/api/agents/${agentA.id}`, { name: 'stolen' }],
      ['DELETE', `/api/agents/${agentA.id}`],
      ['GET', `/api/agents/${agentA.id}/persona`],
      ['PUT', `/api/agents/${agentA.id}/persona`, { archetype: 'builder' }],
      ['GET', `/api/agents/${agentA.id}/skills`],
      ['PUT', `/api/agents/${agentA.id}/skills`, { bundleIds: [] }],
      ['GET', `/api/agents/${agentA.id}/agent-card`],
      ['GET', `/api/agents/${agentA.id}/messages`],
    ] as Array<[string, string, unknown?]>) {
      const res = await server.api(method, path, { key: b.owner, body });
      assert.equal(res.status, 404, `${method} ${path}`);
      assert.equal(res.body.code, 'NOT_FOUND');
    }
    const still = await server.api('GET', `/api/agents/${agentA.id}`, { key: a.viewer });
    assert.equal(still.body.name, 'shared-name');
    const local = await server.api('GET', `/api/agents/${agentA.id}`);
    assert.equal(local.status, 404, 'the default tenant (local owner) is a tenant too');
  });

  it('keeps skill bundles apart, including assignment by id', async () => {
    assert.equal((await server.api('GET', '/api/skill-bundles', { key: b.owner })).body.total, 0);
    assert.equal((await server.api('GET', `/api/skill-bundles/${bundleA.id}`, { key: b.owner })).status, 404);
    assert.equal((await server.api('PUT', `/api/skill-bundles/${bundleA.id}`, { key: b.owner, body: { name: 'mine' } })).status, 404);
    assert.equal((await server.api('DELETE', `/api/skill-bundles/${bundleA.id}`, { key: b.owner })).status, 404);
    const agentB = await createAgent(server, b.owner, { name: 'b-skilled' });
    const assign = await server.api('PUT', `/api/agents/${agentB.id}/skills`, { key: b.owner, body: { bundleIds: [bundleA.id] } });
    assert.equal(assign.status, 400);
    assert.match(assign.body.error, /do not exist/);
    const clone = await server.api('POST', '/api/skill-bundles/presets/devops/clone', { key: b.owner });
    const cloneA = await server.api('POST', '/api/skill-bundles/presets/devops/clone', { key: a.owner });
    assert.equal(clone.status, 201);
    assert.equal(cloneA.status, 201, 'the same preset name is free in each tenant');
    assert.equal((await server.api('GET', `/api/skill-bundles/${bundleA.id}`, { key: a.viewer })).body.name, 'a-kit');
  });

  it('refuses a subscription to another tenant\'s agent stream and allows one to your own', async () => {
    const socket = await server.ws({ key: b.viewer });
    try {
      socket.send({ type: 'subscribe', agentId: agentA.id });
      const refused = await socket.next((m) => m.type === 'error');
      assert.match(refused.message, /not found/);
      const agentB = (await server.api('GET', '/api/agents?search=b-skilled', { key: b.viewer })).body.agents[0];
      socket.send({ type: 'subscribe', agentId: agentB.id });
      assert.deepEqual(await socket.next((m) => m.type === 'subscribed'), { type: 'subscribed', agentId: agentB.id });
      await server.api('PUT', `/api/agents/${agentA.id}`, { key: a.owner, body: { description: 'changed' } });
      await server.api('PUT', `/api/agents/${agentB.id}`, { key: b.owner, body: { description: 'changed too' } });
      const update = await socket.next((m) => m.type === 'agent_updated');
      assert.equal(update.agentId, agentB.id);
      assert.equal(update.action, 'updated');
      assert.ok(!socket.messages.some((m) => m.agentId === agentA.id), 'no event of tenant A reached tenant B');
    } finally {
      await socket.close();
    }
  });

  it('svc_list_agents lists only the caller\'s tenant, with names, ids and wallets', async () => {
    const clientB = await mcpClient(server, b.operator);
    const clientA = await mcpClient(server, a.operator);
    try {
      const listed = await clientB.listTools();
      assert.ok(listed.tools.some((tool) => tool.name === 'svc_list_agents'));
      const fromB = await callTool(clientB, 'svc_list_agents', {});
      assert.equal(fromB.isError, false, fromB.text);
      assert.ok(fromB.value.agents.every((x: any) => x.id !== agentA.id));
      const fromA = await callTool(clientA, 'svc_list_agents', {});
      const mine = fromA.value.agents.find((x: any) => x.id === agentA.id);
      assert.deepEqual({ id: mine.id, name: mine.name, wallet: mine.wallet }, { id: agentA.id, name: 'shared-name', wallet: agentA.wallet });
      const extra = await callTool(clientA, 'svc_list_agents', { tenant: b.tenantId });
      assert.equal(extra.isError, true);
      assert.match(extra.text, /tenant is not allowed/);
    } finally {
      await clientA.close();
      await clientB.close();
    }
  });
});
