// A fake Stripe API on loopback, for the real `stripe` SDK pointed at it (host, port, protocol http):
// customers, subscriptions (create, update, cancel), billing meter events, invoices. It checks the
// secret key, honours Idempotency-Key (a repeated key replays the first answer, as Stripe does),
// answers Stripe's error shape, can lose the answer to a request it processed (the SDK then retries with
// the same key), and builds and signs webhook events with the SDK's own test header.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import Stripe from 'stripe';
import { decodeStripeForm } from './stripe-form.js';

export const FAKE_STRIPE_KEY = 'sk_test_fake_roost';
export const FAKE_WEBHOOK_SECRET = 'whsec_fake_roost';
const DAY = 86_400;

export interface FakeStripeRequest {
  method: string;
  path: string;
  params: Record<string, any>;
  idempotencyKey: string | undefined;
}

export interface FakeStripe {
  url: string;
  port: number;
  requests: FakeStripeRequest[];
  customers: Map<string, any>;
  subscriptions: Map<string, any>;
  invoices: any[];
  /** Meter events as stored: one per distinct identifier. */
  meterEvents: any[];
  /** The next request to `path` is processed, but its answer is lost (500, Stripe-Should-Retry). */
  loseNextAnswer(path: string): void;
  /** A Stripe event object of `type` about `object`, created at `created` (Unix seconds, default now). */
  event(type: string, object: unknown, created?: number): any;
  /** The Stripe-Signature header for `payload`, made by the SDK (timestamp in Unix seconds, default now). */
  sign(payload: string, options?: { secret?: string; timestamp?: number }): string;
  close(): Promise<void>;
}

const id = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;
const now = () => Math.floor(Date.now() / 1000);

function stripeError(res: ServerResponse, status: number, type: string, message: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', 'request-id': id('req'), ...headers });
  res.end(JSON.stringify({ error: { type, message } }));
}

export async function startFakeStripe(options: { prices?: Record<string, number> } = {}): Promise<FakeStripe> {
  const prices = options.prices ?? { price_roost_pro: 2_900, price_roost_enterprise: 49_900, price_roost_credits: 0 };
  const requests: FakeStripeRequest[] = [];
  const customers = new Map<string, any>();
  const subscriptions = new Map<string, any>();
  const invoices: any[] = [];
  const meterEvents: any[] = [];
  const answered = new Map<string, { status: number; body: unknown }>();
  const losing = new Set<string>();

  const item = (price: string, subscription: string, start: number) => ({
    id: id('si'), object: 'subscription_item', subscription, quantity: 1, current_period_start: start, current_period_end: start + 30 * DAY,
    price: { id: price, object: 'price', currency: 'usd', unit_amount: prices[price] ?? 0, recurring: { interval: 'month', usage_type: price.endsWith('credits') ? 'metered' : 'licensed' } },
  });
  const itemList = (data: any[], subscription: string) => ({ object: 'list', data, has_more: false, url: `/v1/subscription_items?subscription=${subscription}` });
  const invoice = (customer: string, subscription: string, amount: number) => {
    const created = now();
    const inv = { id: id('in'), object: 'invoice', customer, subscription, number: `ROOST-${invoices.length + 1}`, status: 'paid', currency: 'usd', amount_due: amount, amount_paid: amount, period_start: created, period_end: created + 30 * DAY, created, hosted_invoice_url: `https://invoice.stripe.test/${invoices.length + 1}` };
    invoices.push(inv);
  };
  const amountOf = (sub: any) => sub.items.data.reduce((sum: number, i: any) => sum + (i.price.unit_amount ?? 0), 0);

  function route(method: string, path: string, params: Record<string, any>, query: URLSearchParams): { status: number; body: unknown } {
    const missing = (what: string) => ({ status: 404, body: { error: { type: 'invalid_request_error', message: `No such ${what}` } } });
    if (method === 'POST' && path === '/v1/customers') {
      const customer = { id: id('cus'), object: 'customer', name: params.name ?? null, metadata: params.metadata ?? {}, created: now() };
      customers.set(customer.id, customer);
      return { status: 200, body: customer };
    }
    if (method === 'POST' && path === '/v1/subscriptions') {
      if (!customers.has(params.customer)) return missing(`customer: '${params.customer}'`);
      const unknown = (params.items ?? []).find((i: any) => !(i.price in prices));
      if (unknown) return missing(`price: '${unknown.price}'`);
      const subId = id('sub');
      const start = now();
      const sub = { id: subId, object: 'subscription', customer: params.customer, status: 'active', metadata: params.metadata ?? {}, cancel_at_period_end: false, canceled_at: null, created: start, items: itemList((params.items ?? []).map((i: any) => item(i.price, subId, start)), subId) };
      subscriptions.set(subId, sub);
      invoice(sub.customer, subId, amountOf(sub));
      return { status: 200, body: sub };
    }
    const subMatch = /^\/v1\/subscriptions\/(sub_[0-9a-f]+)$/.exec(path);
    if (subMatch) {
      const sub = subscriptions.get(subMatch[1]!);
      if (!sub) return missing(`subscription: '${subMatch[1]}'`);
      if (method === 'GET') return { status: 200, body: sub };
      if (method === 'DELETE') {
        Object.assign(sub, { status: 'canceled', canceled_at: now() });
        return { status: 200, body: sub };
      }
      if (method === 'POST') {
        for (const change of params.items ?? []) {
          const existing = sub.items.data.find((i: any) => i.id === change.id);
          if (existing) existing.price = item(change.price, sub.id, existing.current_period_start).price;
          else sub.items.data.push(item(change.price, sub.id, now()));
        }
        if (params.metadata) sub.metadata = { ...sub.metadata, ...params.metadata };
        if (params.cancel_at_period_end !== undefined) sub.cancel_at_period_end = params.cancel_at_period_end === 'true';
        if (params.items) invoice(sub.customer, sub.id, amountOf(sub));
        return { status: 200, body: sub };
      }
    }
    if (method === 'POST' && path === '/v1/billing/meter_events') {
      if (!params.event_name || !params.payload?.stripe_customer_id || params.payload.value === undefined) {
        return { status: 400, body: { error: { type: 'invalid_request_error', message: 'event_name, payload[stripe_customer_id] and payload[value] are required' } } };
      }
      // Stripe keeps an identifier unique per meter: a second event with one is refused.
      if (meterEvents.some((e) => e.identifier === params.identifier)) {
        return { status: 400, body: { error: { type: 'invalid_request_error', message: `An event already exists with identifier ${params.identifier}` } } };
      }
      const event = { object: 'billing.meter_event', event_name: params.event_name, identifier: params.identifier ?? id('mev'), payload: params.payload, timestamp: Number(params.timestamp ?? now()), created: now(), livemode: false };
      meterEvents.push(event);
      return { status: 200, body: event };
    }
    if (method === 'GET' && path === '/v1/invoices') {
      const data = invoices.filter((inv) => !query.get('customer') || inv.customer === query.get('customer')).reverse().slice(0, Number(query.get('limit') ?? 10));
      return { status: 200, body: { object: 'list', data, has_more: false, url: '/v1/invoices' } };
    }
    return { status: 404, body: { error: { type: 'invalid_request_error', message: `Unrecognized request URL (${method}: ${path})` } } };
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const params = decodeStripeForm(Buffer.concat(chunks).toString('utf8'));
    const idempotencyKey = req.headers['idempotency-key'] as string | undefined;
    const method = req.method ?? 'GET';
    requests.push({ method, path: url.pathname, params, idempotencyKey });
    if (req.headers.authorization !== `Bearer ${FAKE_STRIPE_KEY}`) return stripeError(res, 401, 'invalid_request_error', 'Invalid API Key provided');
    const replay = idempotencyKey ? answered.get(`${method} ${url.pathname} ${idempotencyKey}`) : undefined;
    const answer = replay ?? route(method, url.pathname, params, url.searchParams);
    if (idempotencyKey && !replay && method === 'POST') answered.set(`${method} ${url.pathname} ${idempotencyKey}`, answer);
    if (losing.delete(url.pathname)) return stripeError(res, 500, 'api_error', 'the answer was lost on the way back', { 'stripe-should-retry': 'true' });
    res.writeHead(answer.status, { 'content-type': 'application/json', 'request-id': id('req'), ...(replay ? { 'idempotent-replayed': 'true' } : {}) });
    res.end(JSON.stringify(answer.body));
  }

  const sockets = new Set<Socket>();
  const server = createServer((req, res) => void handle(req, res).catch((err: Error) => stripeError(res, 500, 'api_error', err.message)));
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    customers,
    subscriptions,
    invoices,
    meterEvents,
    loseNextAnswer: (path) => void losing.add(path),
    event: (type, object, created = now()) => ({
      id: id('evt'), object: 'event', api_version: '2025-09-30.clover', created, type, livemode: false, pending_webhooks: 1,
      request: { id: null, idempotency_key: null }, data: { object: structuredClone(object) },
    }),
    sign: (payload, signOptions = {}) => Stripe.webhooks.generateTestHeaderString({ payload, secret: signOptions.secret ?? FAKE_WEBHOOK_SECRET, ...(signOptions.timestamp ? { timestamp: signOptions.timestamp } : {}) }),
    close: () => new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    }),
  };
}
