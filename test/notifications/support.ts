// Shared by the notifications and telegram suites: a local webhook receiver (an outside service a
// webhook channel posts to), the server environment with the short test knobs, and MCP helpers.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { agentToken, createAgent, FIXTURES, mcpClient, registerTenant, type Tenant } from '../agents/support.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Short retries and question timeouts from 1 s, so tests need not wait minutes (docs/notifications.md),
 * and every tenant's webhooks may reach the local receiver (by default only the instance's own may).
 */
export const NOTIFY_ENV = {
  ROOST_EXTENSION_DIRS: FIXTURES,
  ROOST_EXT_NOTIFICATIONS_RETRY_BASE_MS: '200',
  ROOST_EXT_NOTIFICATIONS_MIN_TIMEOUT_SECONDS: '1',
  ROOST_EXT_NOTIFICATIONS_ALLOW_PRIVATE_URLS: '1',
  ROOST_EXT_NOTIFICATIONS_ALLOW_LOOPBACK: '1',
};

export interface Received {
  headers: IncomingMessage['headers'];
  body: any;
}

export interface WebhookReceiver {
  url: string;
  received: Received[];
  /** The next `n` posts are answered with `status` (then 200 again). */
  failNext(n: number, status?: number): void;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: Received[] = [];
  let failures = 0;
  let failStatus = 500;
  const server: Server = createServer((req, res) => {
    let data = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (data += chunk));
    req.on('end', () => {
      if (failures > 0) {
        failures--;
        res.writeHead(failStatus, { 'content-type': 'text/plain' }).end('receiver down');
        return;
      }
      received.push({ headers: req.headers, body: JSON.parse(data) });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    failNext(n, status = 500) {
      failures = n;
      failStatus = status;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A server with two tenants, an agent of the first and its MCP client, and a webhook receiver. */
export interface World {
  server: TestServer;
  hook: WebhookReceiver;
  a: Tenant;
  b: Tenant;
  agentId: string;
  mcp: Client;
}

export async function startWorld(prefix: string): Promise<World> {
  const hook = await startWebhookReceiver();
  const server = await startTestServer({ env: NOTIFY_ENV });
  const a = await registerTenant(server, `${prefix}-a`);
  const b = await registerTenant(server, `${prefix}-b`);
  const agentId = (await createAgent(server, a.owner, { name: `${prefix}-agent`, model: 'claude-sonnet-5-5' })).id;
  const mcp = await mcpClient(server, await agentToken(server, a.owner, agentId));
  return { server, hook, a, b, agentId, mcp };
}

export async function stopWorld(world: Partial<World>): Promise<void> {
  await world.mcp?.close();
  await world.server?.cleanup();
  await world.hook?.close();
}
