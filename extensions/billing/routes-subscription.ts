// Subscriptions: subscribe a tenant to a paid plan (the customer and subscription are made at Stripe),
// move it to another plan, read it, cancel it at the period's end or at once.
import { join } from 'node:path';
import type Stripe from 'stripe';
import { notFound, validationError } from '../../protocol/errors.js';
import { validate } from '../../protocol/validate.js';
import type { ExtensionContext, RouteHandler } from '../../sdk/extension.js';
import { created, ok } from '../../sdk/http.js';
import { requireManager, requireReader } from './access.js';
import { billingConfig, stripeClient } from './config.js';
import { BillingStore, subscriptionView, type SubscriptionRow } from './store.js';
import { atStripe } from './stripe-errors.js';
import { fromSubscription, isPaying, readOnlyAt, syncKernel } from './sync.js';

const schema = (ctx: ExtensionContext, name: string) => join(ctx.init.plugin.dir, 'schemas', name);

async function applySubscription(ctx: ExtensionContext, tenantId: string, customerId: string, sub: Stripe.Subscription, current: SubscriptionRow | undefined): Promise<SubscriptionRow> {
  const config = billingConfig(ctx);
  const now = new Date().toISOString();
  const row: SubscriptionRow = {
    tenant_id: tenantId, customer_id: customerId, subscription_id: null, plan: 'free', status: 'incomplete', plan_item_id: null, metered_item_id: null,
    current_period_start: null, current_period_end: null, cancel_at_period_end: false, canceled_at: null, past_due_since: null,
    last_event_at: current?.last_event_at ?? 0, created_at: current?.created_at ?? now, updated_at: now,
    ...fromSubscription(sub, config, current, now),
  };
  await new BillingStore(ctx.db).save(row);
  await syncKernel(ctx, row, config);
  return row;
}

export const subscriptionRoutes: Record<string, RouteHandler> = {
  async 'POST /api/billing/subscription'(req, ctx) {
    const { tenantId, plan } = validate<{ tenantId: string; plan: string }>(schema(ctx, 'subscription-create.json'), req.body);
    requireManager(req.auth, tenantId);
    await ctx.host.tenant(tenantId);
    const config = billingConfig(ctx);
    const price = config.planPrices[plan];
    if (!price) throw validationError(`body.plan must be a paid plan: ${Object.keys(config.planPrices).join(', ')} (to go back to free, cancel the subscription)`);
    const stripe = await stripeClient(ctx);
    const store = new BillingStore(ctx.db);
    const current = await store.get(tenantId);
    if (current?.subscription_id && isPaying(current.status)) {
      // A change of plan: the plan's item gets the new price; Stripe prorates.
      if (current.plan === plan) return ok(subscriptionView(current, readOnlyAt(current, config)));
      const items = current.plan_item_id ? [{ id: current.plan_item_id, price }] : [{ price }];
      const sub = await atStripe('change the plan', () => stripe.subscriptions.update(current.subscription_id!, { items, metadata: { tenantId, plan }, proration_behavior: 'create_prorations' }));
      const row = await applySubscription(ctx, tenantId, current.customer_id, sub, current);
      ctx.host.audit('billing.plan_changed', `tenant:${tenantId}`, { from: current.plan, to: row.plan });
      return ok(subscriptionView(row, readOnlyAt(row, config)));
    }
    const customerId = current?.customer_id
      ?? (await atStripe('create the customer', () => stripe.customers.create({ name: tenantId, metadata: { tenantId } }, { idempotencyKey: `roost-customer-${tenantId}` }))).id;
    const sub = await atStripe('create the subscription', () => stripe.subscriptions.create({
      customer: customerId,
      items: [{ price }, { price: config.meteredPrice }],
      metadata: { tenantId, plan },
    }));
    const row = await applySubscription(ctx, tenantId, customerId, sub, current);
    ctx.host.audit('billing.subscribed', `tenant:${tenantId}`, { plan: row.plan, subscriptionId: row.subscription_id });
    return created(subscriptionView(row, readOnlyAt(row, config)));
  },

  async 'GET /api/billing/subscription/:tenantId'(req, ctx) {
    const tenantId = req.params.tenantId!;
    requireReader(req.auth, tenantId);
    const row = await new BillingStore(ctx.db).get(tenantId);
    if (!row) throw notFound(`subscription of tenant ${tenantId}`);
    return ok(subscriptionView(row, readOnlyAt(row, billingConfig(ctx))));
  },

  async 'POST /api/billing/subscription/:tenantId/cancel'(req, ctx) {
    const tenantId = req.params.tenantId!;
    requireManager(req.auth, tenantId);
    const { atPeriodEnd = true } = validate<{ atPeriodEnd?: boolean }>(schema(ctx, 'subscription-cancel.json'), req.body ?? {});
    const current = await new BillingStore(ctx.db).get(tenantId);
    if (!current?.subscription_id || !isPaying(current.status)) throw notFound(`active subscription of tenant ${tenantId}`);
    const stripe = await stripeClient(ctx);
    const sub = atPeriodEnd
      ? await atStripe('cancel at the period end', () => stripe.subscriptions.update(current.subscription_id!, { cancel_at_period_end: true }))
      : await atStripe('cancel the subscription', () => stripe.subscriptions.cancel(current.subscription_id!));
    const row = await applySubscription(ctx, tenantId, current.customer_id, sub, current);
    ctx.host.audit('billing.canceled', `tenant:${tenantId}`, { atPeriodEnd });
    return ok(subscriptionView(row, readOnlyAt(row, billingConfig(ctx))));
  },
};
