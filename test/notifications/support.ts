// Shared by the notifications and telegram suites: a local webhook receiver (an outside service a
// webhook channel posts to), the server environment with the short test knobs, and MCP helpers.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FIXTURES } from '../agents/support.js';

/** Short retries and question timeouts from 1 s, so tests need not wait minutes (docs/notifications.md). */
export const NOTIFY_ENV = {
  ROOST_EXTENSION_DIRS: FIXTURES,
  ROOST_SECRET_NOTIFICATIONS_RETRY_BASE_MS: '200',
  ROOST_SECRET_NOTIFICATIONS_MIN_TIMEOUT_SECONDS: '1',
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
