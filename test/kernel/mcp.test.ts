// MCP at /mcp with the SDK's own client over Streamable HTTP: tools declared by extensions, tenant
// isolation, argument validation, privileged tools behind agent tokens that an extension mints.
import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { loadFixture } from '../fixtures/extensions/helpers.js';

const OWNER_KEY = 'rk_mcp-test-owner-key-0123456789abcdef';

describe('MCP /mcp', () => {
  let server: TestServer;
  let workDir: string;
  let other: { key: string; tenantId: string };
  const clients: Client[] = [];

  /** A connected SDK client presenting `bearer` (an API key or an MCP token). */
  async function connect(bearer?: string): Promise<Client> {
    const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
      requestInit: bearer ? { headers: { authorization: `Bearer ${bearer}` } } : {},
    });
    const client = new Client({ name: 'roost-mcp-test', version: '1.0.0' });
    await client.connect(transport);
    clients.push(client);
    return client;
  }
  const textOf = (result: any): string => result.content.map((c: { text: string }) => c.text).join('');
  const newProject = async (name: string, key: string) => (await server.api('POST', '/api/projects', { key, body: { name, workingDir: workDir } })).body;
  const mint = async (body: object, key = OWNER_KEY) => {
    const res = await server.api('POST', '/api/fx-probe/token', { key, body });
    assert.equal(res.status, 201, res.text);
    assert.match(res.body.token, /^rmt_/);
    return res.body.token as string;
  };

  before(async () => {
    server = await startTestServer({ env: { ROOST_LOCAL_AUTH: 'required', ROOST_API_KEY: OWNER_KEY } });
    workDir = await mkdtemp(`${tmpdir()}/roost-mcp-`);
    assert.equal((await loadFixture(server, 'fx-probe', OWNER_KEY)).status, 201);
    const registered = await server.api('POST', '/api/tenants/register', { body: { org: 'mcp-other' } });
    other = { key: registered.body.apiKey, tenantId: registered.body.tenant.id };
  });
  after(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await server.cleanup();
  });

  it('lists the tools extensions declare, with their input schemas', async () => {
    const client = await connect(OWNER_KEY);
    const { tools } = await client.listTools();
    const list = tools.find((t) => t.name === 'svc_list_projects');
    const remove = tools.find((t) => t.name === 'svc_delete_project');
    assert.ok(list && remove);
    assert.equal(list.inputSchema.type, 'object');
    assert.deepEqual(remove.inputSchema.required, ['project_id']);
    assert.match(remove.description ?? '', /privileged/);
  });

  it("returns the caller tenant's projects only", async () => {
    await newProject('owner-project', OWNER_KEY);
    await newProject('other-project', other.key);
    const mine = JSON.parse(textOf(await (await connect(OWNER_KEY)).callTool({ name: 'svc_list_projects', arguments: {} })));
    const theirs = JSON.parse(textOf(await (await connect(other.key)).callTool({ name: 'svc_list_projects', arguments: {} })));
    assert.ok(mine.some((p: { name: string }) => p.name === 'owner-project'));
    assert.ok(!mine.some((p: { name: string }) => p.name === 'other-project'));
    assert.deepEqual(theirs.map((p: { name: string }) => p.name), ['other-project']);
  });

  it('answers arguments that fail the schema with isError, and an unknown tool with a JSON-RPC error', async () => {
    const client = await connect(OWNER_KEY);
    const wrongType = await client.callTool({ name: 'svc_list_projects', arguments: { search: 42 } });
    assert.equal(wrongType.isError, true);
    assert.match(textOf(wrongType), /arguments\.search must be string/);
    const extra = await client.callTool({ name: 'svc_list_projects', arguments: { drop: 'tables' } });
    assert.equal(extra.isError, true);
    assert.match(textOf(extra), /arguments\.drop is not allowed/);
    // The spec's protocol error for an unknown tool: -32602 (invalid params), not a tool result.
    await assert.rejects(client.callTool({ name: 'svc_does_not_exist', arguments: {} }), (err: { code?: number; message: string }) => {
      assert.equal(err.code, -32602);
      assert.match(err.message, /unknown tool "svc_does_not_exist"/);
      return true;
    });
  });

  it('takes a JSON-RPC batch only from a client older than 2025-06-18, the version that removed them', async () => {
    const list = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/list', params: {} });
    const post = (body: unknown, version?: string) =>
      fetch(`${server.url}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${OWNER_KEY}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(version ? { 'mcp-protocol-version': version } : {}) },
        body: JSON.stringify(body),
      });
    for (const version of ['2025-06-18', '2025-11-25']) {
      const refused = await post([list(1), list(2)], version);
      assert.equal(refused.status, 400);
      const answer = await refused.json();
      assert.equal(answer.error.code, -32600);
      assert.match(answer.error.message, new RegExp(`not part of MCP ${version}`));
    }
    const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'batcher', version: '1' } } };
    assert.equal((await post([initialize])).status, 400, 'a batched initialize names its version');
    const older = await post([list(1), list(2)], '2025-03-26');
    assert.equal(older.status, 200);
    assert.deepEqual((await older.json()).map((m: { id: number }) => m.id).sort(), [1, 2]);
    const unstated = await post([list(3)]);
    assert.equal(unstated.status, 200, 'no header: the 2025-03-26 default, which had batches');
  });

  // The OAuth metadata itself is served by the mcp-auth extension (test/mcp-auth/oauth-flow.test.ts).
  it('answers a well-known URI nothing serves with 404 to anyone, never a 401 that starts a sign-in', async () => {
    for (const path of ['/.well-known/oauth-authorization-server/mcp', '/.well-known/openid-configuration', '/.well-known/nothing-here']) {
      const res = await fetch(`${server.url}${path}`, { headers: { 'x-forwarded-for': '203.0.113.9' } });
      assert.equal(res.status, 404, path);
      assert.equal((await res.json()).code, 'ROUTE_NOT_FOUND');
    }
  });

  it('refuses a privileged tool to an API key, and to an agent token without the grant', async () => {
    const project = await newProject('precious', OWNER_KEY);
    const byKey = await (await connect(OWNER_KEY)).callTool({ name: 'svc_delete_project', arguments: { project_id: project.id } });
    assert.equal(byKey.isError, true);
    assert.match(textOf(byKey), /svc_delete_project is privileged/);
    const ungranted = await connect(await mint({ agentId: 'agent-plain', tools: [] }));
    const byAgent = await ungranted.callTool({ name: 'svc_delete_project', arguments: { project_id: project.id } });
    assert.equal(byAgent.isError, true);
    assert.match(textOf(byAgent), /privileged/);
    assert.equal((await server.api('GET', `/api/projects/${project.id}`, { key: OWNER_KEY })).status, 200);
    const refusals = await server.api('GET', '/api/audit-log?action=mcp.tool_refused', { key: OWNER_KEY });
    assert.ok(refusals.body.entries.some((e: { actor: string }) => e.actor === 'agent:agent-plain'));
  });

  it('lets an agent token carrying the grant call the privileged tool, within its own tenant only', async () => {
    const project = await newProject('doomed', OWNER_KEY);
    const agent = await connect(await mint({ agentId: 'agent-cleaner', tools: ['svc_delete_project'] }));
    const deleted = await agent.callTool({ name: 'svc_delete_project', arguments: { project_id: project.id } });
    assert.equal(deleted.isError, false, textOf(deleted));
    assert.deepEqual(JSON.parse(textOf(deleted)), { deleted: project.id });
    assert.equal((await server.api('GET', `/api/projects/${project.id}`, { key: OWNER_KEY })).status, 404);

    // A granted agent of another tenant cannot reach this tenant's projects.
    const target = await newProject('out of reach', OWNER_KEY);
    const foreign = await connect(await mint({ agentId: 'agent-foreign', tools: ['svc_delete_project'] }, other.key));
    const attempt = await foreign.callTool({ name: 'svc_delete_project', arguments: { project_id: target.id } });
    assert.equal(attempt.isError, true);
    assert.match(textOf(attempt), /not found/);
    assert.equal((await server.api('GET', `/api/projects/${target.id}`, { key: OWNER_KEY })).status, 200);
  });

  it('offers no SSE stream: a GET is 405, so no connection holds a shutdown open', async () => {
    const res = await fetch(`${server.url}/mcp`, { headers: { authorization: `Bearer ${OWNER_KEY}`, accept: 'text/event-stream' } });
    assert.equal(res.status, 405);
    assert.equal(res.headers.get('allow'), 'POST, DELETE');
    assert.equal((await res.json()).code, 'METHOD_NOT_ALLOWED');
  });

  // With an authorization server offering sign-in (mcp-auth), the MCP spec's answer to an invalid or
  // expired token is 401 with RFC 6750's invalid_token, so an OAuth client refreshes or signs in again.
  it('rejects unknown and expired tokens, and a missing key, with 401 and a Bearer challenge', async () => {
    const status = async (headers: Record<string, string>) => {
      const res = await fetch(`${server.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      return { status: res.status, auth: res.headers.get('www-authenticate'), body: (await res.json()) as { code: string; error: string } };
    };
    const missing = await status({});
    assert.equal(missing.status, 401);
    assert.match(missing.auth ?? '', /^Bearer/);
    assert.equal(missing.body.code, 'AUTH_REQUIRED');
    for (const bearer of ['rmt_never-issued', 'rk_not-a-key']) {
      const refused = await status({ authorization: `Bearer ${bearer}` });
      assert.equal(refused.status, 401);
      assert.match(refused.auth ?? '', /^Bearer .*error="invalid_token"/);
      assert.equal(refused.body.code, 'INVALID_API_KEY');
    }

    const shortLived = await mint({ agentId: 'agent-brief', tools: ['svc_delete_project'], ttlSeconds: 1 });
    await connect(shortLived);
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    const expired = await status({ authorization: `Bearer ${shortLived}` });
    assert.equal(expired.status, 401);
    assert.match(expired.body.error, /unknown or expired/);

    await assert.rejects(connect(), (err: { code?: number }) => err.code === 401);
    await assert.rejects(connect('rmt_never-issued'), (err: { code?: number }) => err.code === 401);
  });

  it('refuses malformed token requests from the extension', async () => {
    const res = await server.api('POST', '/api/fx-probe/token', { key: OWNER_KEY, body: { agentId: 'x', ttlSeconds: 10 ** 9 } });
    assert.equal(res.status, 403);
    assert.equal(res.body.code, 'VALIDATION_ERROR');
    assert.match(res.body.error, /ttlSeconds/);
  });
});
