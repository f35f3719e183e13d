// What a caller without the right to act gets, on REST routes and MCP tools alike: no key is 401
// AUTH_REQUIRED (with WWW-Authenticate: Bearer), a key that is not one is 403 INVALID_API_KEY (on /mcp
// 401 with error="invalid_token", as the MCP spec's authorization asks, so a client may sign in again), and a
// good key sent from a foreign web page (Origin) is 403 FORBIDDEN_ORIGIN on a change, /mcp and reads
// with a foreign Host. The server must require keys of local callers (ROOST_LOCAL_AUTH=required, and a
// ROOST_API_KEY), so this test process stands for a caller that is not on loopback.
import assert from 'node:assert/strict';
import type { TestServer } from './server.js';

export interface Probe {
  method: string;
  path: string;
  body?: unknown;
}

export const LOCKED_SERVER_ENV = (ownerKey: string) => ({ ROOST_API_KEY: ownerKey, ROOST_LOCAL_AUTH: 'required' });
const FOREIGN = 'http://evil.example';

/** A tools/call on /mcp, as a probe. */
export const toolCall = (name: string, args: Record<string, unknown>): Probe => ({
  method: 'POST',
  path: '/mcp',
  body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } },
});

export async function assertRefusedWithoutRights(server: TestServer, goodKey: string, probes: Probe[]): Promise<void> {
  for (const probe of probes) {
    const label = `${probe.method} ${probe.path}${probe.path === '/mcp' ? ` ${JSON.stringify(probe.body).slice(0, 80)}` : ''}`;
    const send = (headers: Record<string, string>) => server.api(probe.method, probe.path, {
      headers: { ...(probe.path === '/mcp' ? { accept: 'application/json, text/event-stream' } : {}), ...headers },
      ...(probe.body === undefined ? {} : { body: probe.body }),
    });

    const anonymous = await send({});
    assert.equal(anonymous.status, 401, `${label} without a key: ${anonymous.text}`);
    assert.equal(anonymous.body?.code, 'AUTH_REQUIRED', label);
    assert.match(String(anonymous.headers.get('www-authenticate')), /^Bearer/, label);

    const wrong = await send({ authorization: 'Bearer roost_not-a-key-at-all' });
    assert.equal(wrong.status, probe.path === '/mcp' ? 401 : 403, `${label} with a bad key: ${wrong.text}`);
    assert.equal(wrong.body?.code, 'INVALID_API_KEY', label);
    if (probe.path === '/mcp') assert.match(String(wrong.headers.get('www-authenticate')), /error="invalid_token"/, label);

    // A foreign page may not change anything nor talk to /mcp, whatever key it holds.
    if (probe.method !== 'GET' || probe.path === '/mcp') {
      const foreign = await send({ authorization: `Bearer ${goodKey}`, origin: FOREIGN });
      assert.equal(foreign.status, 403, `${label} from a foreign origin: ${foreign.text}`);
      assert.equal(foreign.body?.code, 'FORBIDDEN_ORIGIN', label);
    }
  }
}
