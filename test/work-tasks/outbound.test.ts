// Outbound webhooks: registrations, signed deliveries retried with backoff against a failing receiver,
// the delivery records, and loopback/private targets refused unless the deployment allows them.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { sign, verify } from '@octokit/webhooks-methods';
import { registerTenant, type Tenant } from '../agents/support.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
import { startHarness, type Harness } from './harness.js';

const INBOUND_SECRET = 'inbound-secret-for-tests';

interface Received {
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A receiver that answers 500 to the first `failures` requests, then 200. */
async function receiver(failures: number): Promise<{ url: string; received: Received[]; server: Server }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.writeHead(received.length <= failures ? 500 : 200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received, server };
}

describe('outbound webhooks', () => {
  let h: Harness;
  const servers: Server[] = [];
  before(async () => {
    h = await startHarness({
      ROOST_EXT_CODEHOST_WEBHOOK_SECRET: INBOUND_SECRET, ROOST_EXT_CODEHOST_ALLOW_PRIVATE_URLS: '1', ROOST_EXT_CODEHOST_ALLOW_LOOPBACK: '1',
      ROOST_EXT_CODEHOST_WEBHOOK_RETRY_BASE_MS: '100', ROOST_EXT_CODEHOST_WEBHOOK_TICK_MS: '100', ROOST_EXT_CODEHOST_WEBHOOK_MAX_ATTEMPTS: '3',
    });
    await h.agent({ name: 'hook-bot' });
    await h.server.api('POST', '/api/vcshost-allowlist', { body: { username: 'alice' } });
  });
  after(async () => {
    for (const s of servers) s.close();
    await h.close();
  });

  /** A mention from alice on acme/widgets: an event `mention.session_started`. */
  async function mention(): Promise<void> {
    h.anthropic.setScript(['Noted.']);
    const payload = JSON.stringify({ action: 'created', repository: { full_name: 'acme/widgets' }, issue: { number: 3 }, comment: { body: '@hook-bot ping', user: { login: 'alice' }, html_url: 'u' } });
    const res = await h.server.api('POST', '/webhooks/vcshost', { raw: payload, headers: { 'x-hub-signature-256': await sign(INBOUND_SECRET, payload), 'x-github-delivery': randomUUID(), 'x-github-event': 'issue_comment' } });
    assert.equal(res.status, 202, res.text);
  }

  it('signs each delivery and retries a failing receiver with backoff until it answers', async () => {
    const target = await receiver(2);
    servers.push(target.server);
    const created = await h.server.api('POST', '/api/webhooks', { body: { url: target.url, events: ['mention.*'], repo: 'acme/widgets', description: 'ci' } });
    assert.equal(created.status, 201, created.text);
    const { id, secret } = created.body;
    assert.match(secret, /^[0-9a-f]{64}$/);
    assert.equal((await h.server.api('GET', `/api/webhooks/${id}`)).body.secret, undefined, 'the secret is shown once');
    await mention();
    const delivered = await waitFor('the delivery to succeed', async () => {
      const list = (await h.server.api('GET', `/api/webhooks/${id}/deliveries`)).body.deliveries;
      return list.find((d: any) => d.status === 'delivered');
    }, 30_000);
    assert.equal(delivered.attempts, 3);
    assert.equal(delivered.responseStatus, 200);
    assert.equal(target.received.length, 3);
    const last = target.received.at(-1)!;
    assert.equal(last.headers['x-roost-event'], 'mention.session_started');
    assert.equal(last.headers['x-roost-delivery'], delivered.id);
    assert.equal(await verify(secret, last.body, String(last.headers['x-roost-signature-256'])), true);
    assert.equal(JSON.parse(last.body).data.repo, 'acme/widgets');
    const all = (await h.server.api('GET', '/api/webhooks/deliveries')).body.deliveries;
    assert.ok(all.some((d: any) => d.id === delivered.id));
  });

  it('gives up after the last attempt, and sends nothing for other repositories or inactive registrations', async () => {
    const target = await receiver(100);
    servers.push(target.server);
    const failing = (await h.server.api('POST', '/api/webhooks', { body: { url: target.url, events: ['*'], secret: 'a-secret-of-my-own-choice' } })).body;
    const other = (await h.server.api('POST', '/api/webhooks', { body: { url: target.url, events: ['mention.session_started'], repo: 'acme/other' } })).body;
    const paused = (await h.server.api('POST', '/api/webhooks', { body: { url: target.url, events: ['*'], active: false } })).body;
    await mention();
    const failed = await waitFor('the delivery to fail for good', async () => {
      const list = (await h.server.api('GET', `/api/webhooks/${failing.id}/deliveries`)).body.deliveries;
      return list.find((d: any) => d.status === 'failed');
    }, 30_000);
    assert.equal(failed.attempts, 3);
    assert.match(failed.lastError, /answered 500/);
    assert.deepEqual((await h.server.api('GET', `/api/webhooks/${other.id}/deliveries`)).body.deliveries, []);
    assert.deepEqual((await h.server.api('GET', `/api/webhooks/${paused.id}/deliveries`)).body.deliveries, []);
  });

  it('updates, deletes, and refuses bad input and other tenants', async () => {
    const made = (await h.server.api('POST', '/api/webhooks', { body: { url: 'http://127.0.0.1:9/x', events: ['work_task.completed'] } })).body;
    const put = await h.server.api('PUT', `/api/webhooks/${made.id}`, { body: { events: ['work_task.*'], active: false } });
    assert.deepEqual([put.status, put.body.events, put.body.active], [200, ['work_task.*'], false]);
    const post = (body: unknown) => h.server.api('POST', '/api/webhooks', { body });
    assert.equal((await post({ url: 'ftp://example.com/x', events: ['*'] })).status, 400);
    assert.equal((await post({ url: 'http://example.com/x', events: ['nope'] })).status, 400);
    assert.equal((await post({ url: 'http://example.com/x', events: [] })).status, 400);
    assert.equal((await post({ url: 'http://user:pw@example.com/x', events: ['*'] })).status, 400);
    assert.equal((await h.server.api('PUT', `/api/webhooks/${made.id}`, { body: {} })).status, 400);
    const other = (await h.server.api('POST', '/api/tenants/register', { body: { org: 'hooks-other' } })).body.apiKey;
    assert.equal((await h.server.api('GET', `/api/webhooks/${made.id}`, { key: other })).status, 404);
    assert.equal((await h.server.api('DELETE', `/api/webhooks/${made.id}`, { key: other })).status, 404);
    assert.deepEqual((await h.server.api('GET', '/api/webhooks', { key: other })).body.webhooks, []);
    assert.equal((await h.server.api('DELETE', `/api/webhooks/${made.id}`)).status, 204);
    assert.equal((await h.server.api('GET', `/api/webhooks/${made.id}`)).status, 404);
  });

  describe('without ALLOW_PRIVATE_URLS', () => {
    let plain: TestServer;
    let tenant: Tenant;
    before(async () => {
      plain = await startTestServer();
      tenant = await registerTenant(plain, 'hooks-elsewhere');
    });
    after(() => plain.cleanup());

    it("refuses another tenant's loopback, private and reserved targets", async () => {
      for (const url of ['http://127.0.0.1:8080/x', 'http://localhost/x', 'http://10.1.2.3/x', 'http://192.168.1.1/x', 'http://169.254.169.254/latest', 'http://[::1]/x', 'http://[::ffff:127.0.0.1]/x']) {
        const res = await plain.api('POST', '/api/webhooks', { key: tenant.owner, body: { url, events: ['*'] } });
        assert.equal(res.status, 403, `${url}: ${res.text}`);
        assert.match(res.body.error, /loopback, private, link-local or reserved/);
      }
    });
  });
});
