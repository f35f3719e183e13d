// Shared by the agents and credits suites: a real server that also loads the fx-caller fixture
// (test/fixtures/extensions/_credits), tenants with keys of each role, and an MCP client.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { repoRoot } from '../helpers/paths.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

export const FIXTURES = join(repoRoot, 'test/fixtures/extensions/_credits');
export const SESSIONS_STAND_IN = join(FIXTURES, 'stand-ins/fx-sessions');

export const startServer = (): Promise<TestServer> => startTestServer({ env: { ROOST_EXTENSION_DIRS: FIXTURES } });

export interface Tenant {
  tenantId: string;
  owner: string;
  operator: string;
  viewer: string;
}

/** Keys of each role for the instance's own tenant, made by its owner (the keyless local caller). */
export async function instanceMembers(server: TestServer): Promise<Tenant> {
  const member = async (role: string) => {
    const res = await server.api('POST', '/api/tenants/me/members', { body: { role } });
    assert.equal(res.status, 201, res.text);
    return res.body.apiKey as string;
  };
  return { tenantId: 'default', owner: await member('owner'), operator: await member('operator'), viewer: await member('viewer') };
}

/** A tenant with an owner, an operator and a viewer key; on the free plan unless the (keyless, so owner) caller names another. */
export async function registerTenant(server: TestServer, org: string, plan?: string): Promise<Tenant> {
  const reg = await server.api('POST', '/api/tenants/register', { body: { org, ...(plan ? { plan } : {}) } });
  assert.equal(reg.status, 201, reg.text);
  const member = async (role: string) => {
    const res = await server.api('POST', '/api/tenants/me/members', { key: reg.body.apiKey, body: { role } });
    assert.equal(res.status, 201, res.text);
    return res.body.apiKey as string;
  };
  return { tenantId: reg.body.tenant.id, owner: reg.body.apiKey, operator: await member('operator'), viewer: await member('viewer') };
}

export async function createAgent(server: TestServer, key: string | undefined, body: Record<string, unknown>): Promise<any> {
  const res = await server.api('POST', '/api/agents', { key, body });
  assert.equal(res.status, 201, res.text);
  return res.body;
}

/** A skill bundle of the caller's tenant (a project's or an agent's skills must name one), by id. */
export async function createBundle(server: TestServer, key: string | undefined, name: string): Promise<string> {
  const res = await server.api('POST', '/api/skill-bundles', { key, body: { name, description: `${name} tools`, tools: ['WebFetch'], prompts: [] } });
  assert.equal(res.status, 201, res.text);
  return res.body.id;
}

/** Calls another extension's route (internal ones included) as the caller of `key`, like a session runner. */
export async function callAs(server: TestServer, key: string | undefined, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await server.api('POST', '/api/fx-caller/call', { key, body: { method, path, body: body ?? null } });
  assert.equal(res.status, 200, res.text);
  return res.body;
}

/** An MCP token for the agent, carrying its mcp_tool_permissions. */
export async function agentToken(server: TestServer, key: string | undefined, agentId: string): Promise<string> {
  const res = await server.api('POST', `/api/fx-caller/token/${agentId}`, { key, body: {} });
  assert.equal(res.status, 201, res.text);
  return res.body.token;
}

export async function mcpClient(server: TestServer, bearer?: string): Promise<Client> {
  // Loaded on first use: the SDK takes ~0.3 s of CPU to load, and most files importing this never speak MCP.
  const [{ Client }, { StreamableHTTPClientTransport }] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
  ]);
  const client = new Client({ name: 'roost-test', version: '1.0.0' });
  const headers: Record<string, string> = bearer ? { authorization: `Bearer ${bearer}` } : {};
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers } }));
  return client;
}

/** The JSON a tool answered, or its error text. */
export async function callTool(client: Client, name: string, args: Record<string, unknown>): Promise<{ isError: boolean; value: any; text: string }> {
  const result = await client.callTool({ name, arguments: args });
  const text = (result.content as Array<{ type: string; text: string }>).map((c) => c.text).join('');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  return { isError: result.isError === true, value, text };
}

/** Unloads the real sessions extension if this build has one (and what requires it), so invocation can be tested on its own. */
export async function unloadSessions(server: TestServer): Promise<void> {
  const list = await server.api('GET', '/api/plugins');
  const sessions = list.body.plugins.find((p: { name: string; state: string }) => p.name === 'sessions');
  if (sessions && sessions.state !== 'unloaded') assert.equal((await server.api('POST', '/api/plugins/sessions/unload?force=true')).status, 200);
}
