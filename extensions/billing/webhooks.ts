// POST /webhooks/payproc: Stripe's events. The signature is checked by the SDK on the raw body within
// the tolerance window; each event is applied once (stored by id); a subscription event older than the
// one last applied changes nothing; a failed payment marks the tenant past due (read-only once the grace
// period ends) and a paid invoice lifts that.
import Stripe from 'stripe';
import { RoostError, validationError } from '../../protocol/errors.js';
import type { ExtensionContext, RouteHandler } from '../../sdk/extension.js';
import { ok } from '../../sdk/http.js';
import { billingConfig, webhookSecret, type BillingConfig } from './config.js';
import { isoFromUnix, num } from './numbers.js';
import { BillingStore, type SubscriptionRow } from './store.js';
import { fromSubscription, syncKernel } from './sync.js';

type Outcome = 'applied' | 'stale' | 'unknown_customer' | 'not_handled';

function verified(body: string, header: string | undefined, secret: string, config: BillingConfig): Stripe.Event {
  if (!header) throw new RoostError('INVALID_SIGNATURE', 'the Stripe-Signature header is missing', { status: 400 });
  try {
    return Stripe.webhooks.constructEvent(body, header, secret, config.toleranceSeconds);
  } catch (err) {
    // Signed, but not JSON: the signature held, the event is unreadable.
    if (err instanceof SyntaxError) throw validationError('the event is not valid JSON');
    const message = err instanceof Error ? err.message : String(err);
    const stale = /tolerance/i.test(message);
    throw new RoostError('INVALID_SIGNATURE', stale
      ? `the signature's timestamp is outside the ${config.toleranceSeconds} s tolerance window (a replayed delivery?)`
      : 'the Stripe signature does not match this endpoint\'s signing secret', { status: 400 });
  }
}

const customerOf = (object: { customer?: string | { id: string } | null }) => (typeof object.customer === 'string' ? object.customer : object.customer?.id);

async function applySubscriptionEvent(ctx: ExtensionContext, event: Stripe.Event, config: BillingConfig): Promise<Outcome> {
  const sub = event.data.object as Stripe.Subscription;
  const store = new BillingStore(ctx.db);
  const row = await store.byCustomer(customerOf(sub) ?? '');
  if (!row) return 'unknown_customer';
  // Older than what was applied, or about a subscription the tenant has since replaced.
  if (num(row.last_event_at) > event.created || (row.subscription_id && row.subscription_id !== sub.id)) return 'stale';
  const at = isoFromUnix(event.created)!;
  const next: SubscriptionRow = { ...row, ...fromSubscription(sub, config, row, at), last_event_at: event.created, updated_at: new Date().toISOString() };
  if (event.type === 'customer.subscription.deleted') next.status = 'canceled';
  await store.save(next);
  await syncKernel(ctx, next, config);
  return 'applied';
}

async function applyInvoiceEvent(ctx: ExtensionContext, event: Stripe.Event, config: BillingConfig, failed: boolean): Promise<Outcome> {
  const invoice = event.data.object as Stripe.Invoice;
  const store = new BillingStore(ctx.db);
  const row = await store.byCustomer(customerOf(invoice) ?? '');
  if (!row) return 'unknown_customer';
  // The grace period runs from the first failure; a later failure does not restart it.
  const pastDueSince = failed ? (row.past_due_since ?? isoFromUnix(event.created)) : null;
  const next: SubscriptionRow = { ...row, past_due_since: pastDueSince, ...(failed || row.status !== 'past_due' ? {} : { status: 'active' }) };
  await store.patch(row.tenant_id, { past_due_since: next.past_due_since, status: next.status });
  await syncKernel(ctx, next, config);
  return 'applied';
}

async function apply(ctx: ExtensionContext, event: Stripe.Event, config: BillingConfig): Promise<Outcome> {
  switch (event.type) {
    case 'customer.subscription.created':
    case 'customer.subscription.updated':
    case 'customer.subscription.deleted':
      return applySubscriptionEvent(ctx, event, config);
    case 'invoice.payment_failed':
      return applyInvoiceEvent(ctx, event, config, true);
    case 'invoice.paid':
    case 'invoice.payment_succeeded':
      return applyInvoiceEvent(ctx, event, config, false);
    default:
      return 'not_handled';
  }
}

export const webhookRoutes: Record<string, RouteHandler> = {
  async 'POST /webhooks/payproc'(req, ctx) {
    const body = typeof req.body === 'string' ? req.body : '';
    if (body === '') throw validationError('the request has no body');
    const config = billingConfig(ctx);
    const event = verified(body, req.headers['stripe-signature'], await webhookSecret(ctx), config);
    if (await ctx.db('webhook_events').where({ id: event.id }).first()) return ok({ received: true, duplicate: true });
    const outcome = await apply(ctx, event, config);
    const customer = customerOf(event.data.object as { customer?: string });
    const tenantId = customer ? (await new BillingStore(ctx.db).byCustomer(customer))?.tenant_id ?? null : null;
    await ctx.db('webhook_events').insert({ id: event.id, type: event.type, tenant_id: tenantId, created: event.created, outcome, received_at: new Date().toISOString() }).onConflict('id').ignore();
    return ok({ received: true, outcome });
  },
};
