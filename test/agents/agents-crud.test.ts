import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestServer } from '../helpers/server.js';
import { callAs, createAgent, registerTenant, startServer, type Tenant } from './support.js';

describe('agents: records, wallets and roles', () => {
  let server: TestServer;
  let t: Tenant;
  before(async () => {
    server = await startServer();
    t = await registerTenant(server, 'crud-org');
  });
  after(() => server.cleanup());

  it('creates an agent with defaults, a wallet and its tenant; reads, lists, updates and deletes it', async () => {
    const agent = await createAgent(server, t.operator, { name: 'ada', description: 'first agent' });
    assert.match(agent.id, /^[0-9a-f-]{36}$/);
    assert.match(agent.wallet, /^rw_[0-9a-f]{40}$/);
    assert.equal(agent.tenant, t.tenantId);
    assert.equal(agent.provider, 'anthropic');
    assert.equal(agent.model, 'claude-sonnet-5-5', 'the one current default, shared with the CLI');
    assert.equal(agent.permissionMode, 'default');
    assert.deepEqual(agent.mcp_tool_permissions, []);
    assert.equal(agent.systemPrompt, '');

    const local = await createAgent(server, t.operator, { name: 'olla', provider: 'ollama', permissionMode: 'plan', systemPrompt: 'Be brief.' });
    assert.equal(local.model, 'llama3.2');
    assert.notEqual(local.wallet, agent.wallet);

    const got = await server.api('GET', `/api/agents/${agent.id}`, { key: t.viewer });
    assert.equal(got.status, 200);
    assert.deepEqual(got.body, agent);

    const list = await server.api('GET', '/api/agents?limit=1&total=true', { key: t.viewer });
    assert.equal(list.body.total, 2);
    assert.equal(list.body.hasMore, true);
    assert.equal((await server.api('GET', '/api/agents?limit=1', { key: t.viewer })).body.total, undefined, 'no COUNT unless asked for');
    assert.equal((await server.api('GET', '/api/agents?total=maybe', { key: t.viewer })).status, 400);
    assert.equal(list.body.agents.length, 1);
    assert.equal(list.body.agents[0].name, 'ada');
    const byWallet = await server.api('GET', `/api/agents?wallet=${local.wallet}`, { key: t.viewer });
    assert.deepEqual(byWallet.body.agents.map((a: any) => a.id), [local.id]);
    const bySearch = await server.api('GET', '/api/agents?search=oll', { key: t.viewer });
    assert.deepEqual(bySearch.body.agents.map((a: any) => a.name), ['olla']);

    const updated = await server.api('PUT', `/api/agents/${agent.id}`, { key: t.operator, body: { model: 'claude-haiku-4-5', permissionMode: 'acceptEdits', systemPrompt: 'Review.' } });
    assert.equal(updated.status, 200);
    assert.equal(updated.body.model, 'claude-haiku-4-5');
    assert.equal(updated.body.permissionMode, 'acceptEdits');
    assert.equal(updated.body.wallet, agent.wallet);
    assert.equal(updated.body.createdAt, agent.createdAt);

    assert.equal((await server.api('DELETE', `/api/agents/${local.id}`, { key: t.operator })).status, 204);
    const gone = await server.api('GET', `/api/agents/${local.id}`, { key: t.operator });
    assert.equal(gone.status, 404);
    assert.equal(gone.body.code, 'NOT_FOUND');
    assert.equal((await server.api('DELETE', `/api/agents/${local.id}`, { key: t.operator })).status, 404);
  });

  it('keeps the wallet immutable and names unique within the tenant', async () => {
    const agent = await createAgent(server, t.operator, { name: 'fixed' });
    for (const body of [{ wallet: 'rw_0000000000000000000000000000000000000000' }, { id: 'x' }, { tenant: 'other' }]) {
      const res = await server.api('PUT', `/api/agents/${agent.id}`, { key: t.owner, body });
      assert.equal(res.status, 400);
      assert.match(res.body.error, /cannot be set/);
    }
    const onCreate = await server.api('POST', '/api/agents', { key: t.owner, body: { name: 'walleted', wallet: 'rw_mine' } });
    assert.equal(onCreate.status, 400);
    assert.equal((await server.api('GET', `/api/agents/${agent.id}`, { key: t.owner })).body.wallet, agent.wallet);

    const dup = await server.api('POST', '/api/agents', { key: t.operator, body: { name: 'fixed' } });
    assert.equal(dup.status, 409);
    assert.equal(dup.body.code, 'CONFLICT');
    const other = await createAgent(server, t.operator, { name: 'other-name' });
    const rename = await server.api('PUT', `/api/agents/${other.id}`, { key: t.operator, body: { name: 'fixed' } });
    assert.equal(rename.status, 409);
  });

  it('searches names literally: % and _ match only themselves', async () => {
    const underscored = await createAgent(server, t.operator, { name: 'code_bot' });
    await createAgent(server, t.operator, { name: 'codeXbot' });
    const found = await server.api('GET', '/api/agents?search=e_b', { key: t.viewer });
    assert.deepEqual(found.body.agents.map((a: any) => a.id), [underscored.id]);
    assert.equal((await server.api('GET', '/api/agents?search=%25', { key: t.viewer })).body.total, 0);
  });

  it('lets only an owner grant or change mcp_tool_permissions', async () => {
    const byOperator = await server.api('POST', '/api/agents', { key: t.operator, body: { name: 'privileged', mcp_tool_permissions: ['svc_grant_credits'] } });
    assert.equal(byOperator.status, 403);
    assert.equal(byOperator.body.code, 'FORBIDDEN');

    const agent = await createAgent(server, t.owner, { name: 'privileged', mcp_tool_permissions: ['svc_grant_credits'] });
    assert.deepEqual(agent.mcp_tool_permissions, ['svc_grant_credits']);
    const change = await server.api('PUT', `/api/agents/${agent.id}`, { key: t.operator, body: { mcp_tool_permissions: ['svc_grant_credits', 'svc_credit_config'] } });
    assert.equal(change.status, 403);
    const same = await server.api('PUT', `/api/agents/${agent.id}`, { key: t.operator, body: { mcp_tool_permissions: ['svc_grant_credits'], description: 'unchanged grants' } });
    assert.equal(same.status, 200);
    const byOwner = await server.api('PUT', `/api/agents/${agent.id}`, { key: t.owner, body: { mcp_tool_permissions: [] } });
    assert.deepEqual(byOwner.body.mcp_tool_permissions, []);
  });

  it('refuses viewers, malformed bodies, wrong types, missing fields and unknown enum values', async () => {
    const agent = await createAgent(server, t.operator, { name: 'target' });
    const viewer = await server.api('POST', '/api/agents', { key: t.viewer, body: { name: 'nope' } });
    assert.equal(viewer.status, 403);
    assert.equal((await server.api('PUT', `/api/agents/${agent.id}`, { key: t.viewer, body: { name: 'x' } })).status, 403);
    assert.equal((await server.api('DELETE', `/api/agents/${agent.id}`, { key: t.viewer })).status, 403);

    const bad: Array<[unknown, RegExp]> = [
      [{}, /body\.name is required/],
      [{ name: '' }, /body\.name/],
      [{ name: 42 }, /body\.name must be string/],
      [{ name: 'x', provider: 'openai' }, /body\.provider/],
      [{ name: 'x', permissionMode: 'yolo' }, /body\.permissionMode/],
      [{ name: 'x', mcp_tool_permissions: 'svc_grant_credits' }, /mcp_tool_permissions must be array/],
      [{ name: 'x', mcp_tool_permissions: ['Bad Name'] }, /mcp_tool_permissions/],
      [{ name: 'x', colour: 'red' }, /body\.colour is not allowed/],
      [[1, 2], /body must be object/],
      [{ name: 'x'.repeat(101) }, /body\.name/],
    ];
    for (const [body, message] of bad) {
      const res = await server.api('POST', '/api/agents', { key: t.owner, body });
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.code, 'VALIDATION_ERROR');
      assert.match(res.body.error, message);
    }
    const malformed = await server.api('POST', '/api/agents', { key: t.owner, raw: '{"name": ' });
    assert.equal(malformed.status, 400);
    const longPrompt = await server.api('POST', '/api/agents', { key: t.owner, body: { name: 'long', systemPrompt: 'x'.repeat(100_001) } });
    assert.equal(longPrompt.status, 400);
    assert.match(longPrompt.body.error, /systemPrompt/);
    const oversized = await server.api('POST', '/api/agents', { key: t.owner, body: { name: 'huge', systemPrompt: 'x'.repeat(1_100_000) } });
    assert.equal(oversized.status, 413);
    assert.equal((await server.api('GET', '/api/agents?search=huge', { key: t.owner })).body.total, 0);
    const empty = await server.api('PUT', `/api/agents/${agent.id}`, { key: t.owner, body: {} });
    assert.equal(empty.status, 400);
    assert.equal((await server.api('PUT', '/api/agents/no-such-agent', { key: t.owner, body: { name: 'y' } })).status, 404);
    const page = await server.api('GET', '/api/agents?limit=0', { key: t.owner });
    assert.equal(page.status, 400);
    assert.match(page.body.error, /query\.limit/);
    assert.equal((await server.api('GET', `/api/agents/${agent.id}`, { key: t.viewer })).body.name, 'target');
  });

  it('serves the composed runtime view to other extensions only', async () => {
    const agent = await createAgent(server, t.owner, { name: 'runner', systemPrompt: 'You maintain the build.', mcp_tool_permissions: ['svc_credit_config'] });
    const bundle = await server.api('POST', '/api/skill-bundles', { key: t.owner, body: { name: 'ops-kit', description: 'Operations', tools: ['Bash', 'Read', 'Bash2'], prompts: ['Verify every step.'] } });
    const second = await server.api('POST', '/api/skill-bundles', { key: t.owner, body: { name: 'read-kit', tools: ['Read'], prompts: [] } });
    await server.api('PUT', `/api/agents/${agent.id}/skills`, { key: t.owner, body: { bundleIds: [bundle.body.id, second.body.id] } });
    await server.api('PUT', `/api/agents/${agent.id}/persona`, { key: t.owner, body: { archetype: 'operator', traits: ['careful', 'terse'] } });

    const http = await server.api('GET', `/api/internal/agents/${agent.id}/runtime`, { key: t.owner });
    assert.equal(http.status, 404);
    assert.equal(http.body.code, 'ROUTE_NOT_FOUND');

    const runtime = await callAs(server, t.operator, 'GET', `/api/internal/agents/${agent.id}/runtime`);
    assert.equal(runtime.status, 200);
    assert.deepEqual(runtime.body.agent.mcp_tool_permissions, ['svc_credit_config']);
    assert.equal(runtime.body.persona.archetype, 'operator');
    assert.deepEqual(runtime.body.tools, ['Bash', 'Read', 'Bash2']);
    assert.match(runtime.body.systemPrompt, /^You maintain the build\.\n\nPersona: you are an operator\. .*Your traits: careful, terse\./s);
    assert.match(runtime.body.systemPrompt, /Skill "ops-kit": Operations\n- Verify every step\./);
    assert.ok(runtime.body.systemPrompt.indexOf('ops-kit') < runtime.body.systemPrompt.indexOf('read-kit'));
    for (const archetype of ['analyst', 'architect', 'builder', 'reviewer', 'researcher', 'mentor', 'operator', 'diplomat']) {
      assert.equal((await server.api('PUT', `/api/agents/${agent.id}/persona`, { key: t.owner, body: { archetype } })).status, 200, archetype);
      const composed = (await callAs(server, t.operator, 'GET', `/api/internal/agents/${agent.id}/runtime`)).body.systemPrompt;
      assert.match(composed, new RegExp(`Persona: you are an? ${archetype}\\. [A-Z][^\\n]+\\.`), archetype);
      assert.doesNotMatch(composed, /undefined/);
    }
    const missing = await callAs(server, t.operator, 'GET', '/api/internal/agents/nobody/runtime');
    assert.equal(missing.status, 404);
  });
});
