// What the billing tests share: the fake Stripe API, a server whose billing extension talks to it with
// the real SDK, and tenants registered over the public route.
import assert from 'node:assert/strict';
import { FAKE_STRIPE_KEY, FAKE_WEBHOOK_SECRET, type FakeStripe } from '../fakes/stripe.js';
import type { ApiResponse, TestServer } from '../helpers/server.js';

export interface Tenant {
  id: string;
  key: string;
}

export function billingEnv(stripe: FakeStripe, extra: Record<string, string> = {}): Record<string, string> {
  return {
    ROOST_EXT_BILLING_STRIPE_API_KEY: FAKE_STRIPE_KEY,
    ROOST_EXT_BILLING_STRIPE_WEBHOOK_SECRET: FAKE_WEBHOOK_SECRET,
    ROOST_EXT_BILLING_STRIPE_HOST: '127.0.0.1',
    ROOST_EXT_BILLING_STRIPE_PORT: String(stripe.port),
    ROOST_EXT_BILLING_STRIPE_PROTOCOL: 'http',
    ...extra,
  };
}

export async function registerTenant(server: TestServer, org: string): Promise<Tenant> {
  const res = await server.api('POST', '/api/tenants/register', { body: { org } });
  assert.equal(res.status, 201, res.text);
  return { id: res.body.tenant.id, key: res.body.apiKey };
}

export function assertError(res: ApiResponse, status: number, code: string): void {
  assert.equal(res.status, status, res.text);
  assert.equal(res.body.code, code, res.text);
  assert.equal(typeof res.body.error, 'string');
}

/** Posts a Stripe event to /webhooks/payproc with a signature the SDK made (or the header given). */
export async function deliver(server: TestServer, stripe: FakeStripe, event: unknown, options: { timestamp?: number; secret?: string; header?: string; raw?: string } = {}): Promise<ApiResponse> {
  const payload = options.raw ?? JSON.stringify(event);
  const signature = options.header ?? stripe.sign(payload, { ...(options.timestamp ? { timestamp: options.timestamp } : {}), ...(options.secret ? { secret: options.secret } : {}) });
  return server.api('POST', '/webhooks/payproc', { raw: payload, headers: { 'content-type': 'application/json', 'stripe-signature': signature } });
}
