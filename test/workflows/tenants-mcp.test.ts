// Tenancy, roles and hostile input around workflows, the webhook's token, the test clock's guard, and
// svc_manage_workflow through the MCP SDK client.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { callTool, mcpClient, registerTenant, type Tenant } from '../agents/support.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { ended, saveWorkflow, startWorkflowServer, trigger, untilNode, untilRun } from './support.js';

const HOOKED = [{ id: 's', type: 'start' }, { id: 'h', type: 'webhook' }, { id: 'ok', type: 'approval' }, { id: 'e', type: 'end', config: { output: '{{nodes.h.output.body}}' } }];
const HOOKED_EDGES = [{ from: 's', to: 'h' }, { from: 'h', to: 'ok' }, { from: 'ok', to: 'e' }];

describe('workflows: tenants, roles, webhook tokens and svc_manage_workflow', () => {
  let server: TestServer;
  let a: Tenant;
  let b: Tenant;
  before(async () => {
    server = await startWorkflowServer();
    a = await registerTenant(server, 'wf-a');
    b = await registerTenant(server, 'wf-b');
  });
  after(() => server.cleanup());

  it('answers another tenant\'s workflows and runs 404, exactly like unknown ids', async () => {
    const wf = await saveWorkflow(server, HOOKED, HOOKED_EDGES, { key: a.operator });
    const run = await trigger(server, wf.id, { n: 1 }, a.operator);
    const unknown = '00000000-0000-4000-8000-000000000000';
    for (const [method, path, body] of [
      ['GET', `/api/workflows/${wf.id}`], ['PUT', `/api/workflows/${wf.id}`, { name: 'x' }], ['DELETE', `/api/workflows/${wf.id}`],
      ['POST', `/api/workflows/${wf.id}/trigger`, {}], ['GET', `/api/workflows/${wf.id}/runs`],
      ['GET', `/api/workflow-runs/${run.id}`], ['GET', `/api/workflow-runs/${run.id}/nodes`],
      ['POST', `/api/workflow-runs/${run.id}/action`, { action: 'cancel' }], ['POST', `/api/workflow-runs/${run.id}/approve`, { nodeId: 'ok', decision: 'approve' }],
    ] as Array<[string, string, unknown?]>) {
      const foreign = await server.api(method, path, { key: b.owner, body });
      const missing = await server.api(method, path.replace(wf.id, unknown).replace(run.id, unknown), { key: b.owner, body });
      assert.equal(foreign.status, 404, `${method} ${path}: ${foreign.text}`);
      assert.equal(missing.status, 404);
      assert.equal(foreign.body.code, missing.body.code);
    }
    assert.equal((await server.api('GET', '/api/workflows', { key: b.owner })).body.workflows.length, 0);
    assert.equal((await server.api('GET', '/api/workflow-runs', { key: b.owner })).body.runs.length, 0);
    assert.equal((await server.api('GET', '/api/workflow-runs', { key: a.viewer })).body.runs[0].id, run.id);
    const ws = await server.ws({ key: b.owner });
    try {
      ws.send({ type: 'subscribe', runId: run.id });
      assert.equal((await ws.next((m) => m.type === 'error' || m.type === 'subscribed')).type, 'error');
    } finally {
      await ws.close();
    }
  });

  it('refuses the webhook without its token, with a wrong one, and with another wait\'s token', async () => {
    const wf = await saveWorkflow(server, HOOKED, HOOKED_EDGES, { key: a.operator });
    const run = await trigger(server, wf.id, null, a.operator);
    const other = await trigger(server, wf.id, null, a.operator);
    const hook = await untilNode(server, run.id, 'h', (n) => n.status === 'waiting', a.operator);
    const otherHook = await untilNode(server, other.id, 'h', (n) => n.status === 'waiting', a.operator);
    const call = (path: string, token?: string) => fetch(`${server.url}${path}${token === undefined ? '' : `?token=${encodeURIComponent(token)}`}`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ paid: true }),
    });
    assert.equal((await call(hook.webhook.path)).status, 403);
    assert.equal((await call(hook.webhook.path, 'x'.repeat(43))).status, 403);
    assert.equal((await call(hook.webhook.path, otherHook.webhook.token)).status, 403);
    assert.equal((await call(hook.webhook.path.replace('/h', '/ok'), hook.webhook.token)).status, 404);
    const still = await untilNode(server, run.id, 'h', () => true, a.operator);
    assert.equal(still.status, 'waiting', 'refused calls change nothing');
    const seenByViewer = await untilNode(server, run.id, 'h', () => true, a.viewer);
    assert.equal(seenByViewer.webhook, undefined, 'a viewer is not shown the token (holding it, one could change the run)');
    // The right token, from anyone (no key): accepted.
    assert.equal((await call(hook.webhook.path, hook.webhook.token)).status, 202);
    await untilNode(server, run.id, 'ok', (n) => n.status === 'waiting', a.operator);

    // Only an owner answers an approval; viewers change nothing at all.
    const byOperator = await server.api('POST', `/api/workflow-runs/${run.id}/approve`, { key: a.operator, body: { nodeId: 'ok', decision: 'approve' } });
    assert.equal(byOperator.status, 403);
    assert.match(byOperator.body.error, /owner/);
    assert.equal((await server.api('POST', `/api/workflow-runs/${run.id}/action`, { key: a.viewer, body: { action: 'cancel' } })).status, 403);
    assert.equal((await server.api('POST', `/api/workflow-runs/${run.id}/approve`, { key: a.owner, body: { nodeId: 'ok', decision: 'approve' } })).status, 200);
    const done = await untilRun(server, run.id, ended, 20_000, a.operator);
    assert.deepEqual(done.output, { paid: true });
    const foreignOrigin = await server.api('POST', `/api/workflows/${wf.id}/trigger`, { key: a.operator, body: {}, headers: { origin: 'https://evil.example' } });
    assert.equal(foreignOrigin.status, 403);
    await server.api('POST', `/api/workflow-runs/${other.id}/action`, { key: a.operator, body: { action: 'cancel' } });
  });

  it('refuses a trigger past 100 active runs of a tenant, and takes them again once some end', async () => {
    const c = await registerTenant(server, 'wf-c');
    const wf = await saveWorkflow(server, HOOKED, HOOKED_EDGES, { key: c.operator });
    const runs = await Promise.all(Array.from({ length: 100 }, () => trigger(server, wf.id, null, c.operator)));
    const refused = await server.api('POST', `/api/workflows/${wf.id}/trigger`, { key: c.operator, body: {} });
    assert.equal(refused.status, 429);
    assert.equal(refused.body.code, 'TOO_MANY_RUNS');
    assert.match(refused.body.error, /100 active workflow runs \(the limit is 100\)/);
    const own = await saveWorkflow(server, HOOKED, HOOKED_EDGES, { key: a.operator });
    const elsewhere = await trigger(server, own.id, null, a.operator);
    assert.equal(elsewhere.status, 'running', 'other tenants are not held back');
    await server.api('POST', `/api/workflow-runs/${elsewhere.id}/action`, { key: a.operator, body: { action: 'cancel' } });
    await server.api('POST', `/api/workflow-runs/${runs[0].id}/action`, { key: c.operator, body: { action: 'cancel' } });
    assert.equal((await trigger(server, wf.id, null, c.operator)).status, 'running');
  });

  it('lets only the instance owner advance the test clock, and has none unless switched on', async () => {
    const refused = await server.api('POST', '/api/workflows/test-clock', { key: a.owner, body: { advanceMs: 1000 } });
    assert.equal(refused.status, 403);
    const plain = await startTestServer();
    try {
      const off = await plain.api('POST', '/api/workflows/test-clock', { body: { advanceMs: 1000 } });
      assert.equal(off.status, 404);
      assert.match(off.body.error, /test clock/);
      assert.equal((await plain.api('GET', '/api/workflows/health')).body.clock.test, false);
    } finally {
      await plain.cleanup();
    }
  });

  it('svc_manage_workflow: every action through the MCP SDK client, within the caller\'s tenant', async () => {
    const client = await mcpClient(server, a.operator);
    const foreign = await mcpClient(server, b.operator);
    try {
      const made = await callTool(client, 'svc_manage_workflow', { action: 'create', workflow: { name: 'via mcp', nodes: HOOKED, edges: HOOKED_EDGES } });
      assert.equal(made.isError, false, made.text);
      const id = made.value.id;
      assert.equal((await callTool(client, 'svc_manage_workflow', { action: 'get', workflow_id: id })).value.name, 'via mcp');
      assert.ok((await callTool(client, 'svc_manage_workflow', { action: 'list' })).value.workflows.some((w: any) => w.id === id));
      assert.equal((await callTool(client, 'svc_manage_workflow', { action: 'update', workflow_id: id, workflow: { description: 'changed' } })).value.version, 2);
      const badGraph = await callTool(client, 'svc_manage_workflow', { action: 'update', workflow_id: id, workflow: { edges: [] } });
      assert.equal(badGraph.isError, true);
      assert.match(badGraph.text, /cannot be reached/);

      const run = (await callTool(client, 'svc_manage_workflow', { action: 'trigger', workflow_id: id, input: { via: 'mcp' } })).value;
      assert.equal(run.status, 'running');
      assert.deepEqual(run.input, { via: 'mcp' });
      assert.ok((await callTool(client, 'svc_manage_workflow', { action: 'runs', workflow_id: id })).value.runs.some((r: any) => r.id === run.id));
      await untilNode(server, run.id, 'h', (n) => n.status === 'waiting', a.operator);
      const status = await callTool(client, 'svc_manage_workflow', { action: 'run_status', run_id: run.id });
      assert.equal(status.value.nodeRuns.find((n: any) => n.nodeId === 'h').status, 'waiting');
      assert.equal(status.value.nodeRuns.find((n: any) => n.nodeId === 'h').webhook, undefined);
      assert.equal((await callTool(client, 'svc_manage_workflow', { action: 'pause', run_id: run.id })).value.status, 'paused');
      assert.equal((await callTool(client, 'svc_manage_workflow', { action: 'resume', run_id: run.id })).value.status, 'running');

      assert.match((await callTool(foreign, 'svc_manage_workflow', { action: 'get', workflow_id: id })).text, /not found/);
      assert.match((await callTool(foreign, 'svc_manage_workflow', { action: 'cancel', run_id: run.id })).text, /not found/);
      assert.equal((await callTool(foreign, 'svc_manage_workflow', { action: 'trigger', workflow_id: id })).isError, true);
      const noId = await callTool(client, 'svc_manage_workflow', { action: 'get' });
      assert.equal(noId.isError, true);
      assert.match(noId.text, /needs workflow_id/);
      assert.equal((await callTool(client, 'svc_manage_workflow', { action: 'explode' })).isError, true);

      const busy = await callTool(client, 'svc_manage_workflow', { action: 'delete', workflow_id: id });
      assert.match(busy.text, /active runs/);
      assert.equal((await callTool(client, 'svc_manage_workflow', { action: 'cancel', run_id: run.id })).value.status, 'cancelled');
      assert.deepEqual((await callTool(client, 'svc_manage_workflow', { action: 'delete', workflow_id: id })).value, { deleted: id });
    } finally {
      await client.close();
      await foreign.close();
    }
  });
});
