// The memory suites' server: the real server with the fx-caller fixture (to mint agents' MCP tokens),
// plus helpers over the MCP SDK client.
import assert from 'node:assert/strict';
import { FIXTURES } from '../agents/support.js';
import { startTestServer, type StartOptions, type TestServer } from '../helpers/server.js';

export const startMemoryServer = (options: StartOptions = {}): Promise<TestServer> =>
  startTestServer({ ...options, env: { ROOST_EXTENSION_DIRS: FIXTURES, ...options.env } });

/** Saves a memory through the MCP HTTP API as the caller of `key`. */
export async function saveMemory(server: TestServer, key: string | undefined, agentId: string, memoryKey: string, content: string): Promise<any> {
  const res = await server.api('POST', '/api/mcp/save-memory', { key, body: { agentId, key: memoryKey, content } });
  assert.ok(res.status === 201 || res.status === 200, res.text);
  return res.body;
}
