// From what Stripe says to what plans and the kernel enforce: a paying subscription puts the tenant on its
// plan, anything else on free; a failed payment marks it past due, and read-only once the grace period ends.
import type Stripe from 'stripe';
import type { ExtensionContext } from '../../sdk/extension.js';
import { PlansClient } from '../plans/contract.js';
import type { BillingConfig } from './config.js';
import { isoFromUnix } from './numbers.js';
import type { SubscriptionRow } from './store.js';

const PAYING = new Set(['active', 'trialing', 'past_due']);

/** Why a tenant past its grace period reads only, as the kernel's refusals say it. */
const OVERDUE = "its payment is overdue and its grace period has ended; it can change things again once the payment goes through";

export const isPaying = (status: string) => PAYING.has(status);

export function readOnlyAt(row: SubscriptionRow, config: BillingConfig): string | null {
  return row.past_due_since ? new Date(Date.parse(row.past_due_since) + config.graceSeconds * 1000).toISOString() : null;
}

export async function syncKernel(ctx: ExtensionContext, row: SubscriptionRow, config: BillingConfig): Promise<void> {
  const paying = isPaying(row.status);
  await new PlansClient(ctx.host).set(row.tenant_id, {
    plan: paying ? row.plan : 'free',
    billingStatus: row.past_due_since ? 'past_due' : paying ? 'active' : 'canceled',
  }, { tenantId: row.tenant_id });
  await ctx.host.setTenantReadOnly(row.tenant_id, readOnlyAt(row, config), OVERDUE);
}

/** The plan a subscription bills: by its price (what is charged), else as its metadata names it. */
function planOf(sub: Stripe.Subscription, config: BillingConfig): { plan: string | undefined; item: Stripe.SubscriptionItem | undefined } {
  const byPrice = Object.fromEntries(Object.entries(config.planPrices).map(([plan, price]) => [price, plan]));
  const item = sub.items.data.find((i) => byPrice[i.price.id] !== undefined);
  return { plan: item ? byPrice[item.price.id] : sub.metadata?.plan, item };
}

/** The row's fields a Stripe subscription object decides; `at` is when Stripe described it (ISO). */
export function fromSubscription(sub: Stripe.Subscription, config: BillingConfig, current: SubscriptionRow | undefined, at: string): Partial<SubscriptionRow> {
  const { plan, item } = planOf(sub, config);
  const metered = sub.items.data.find((i) => i.price.id === config.meteredPrice);
  const pastDue = sub.status === 'past_due' || sub.status === 'unpaid';
  return {
    subscription_id: sub.id,
    status: sub.status,
    ...(plan ? { plan } : {}),
    plan_item_id: item?.id ?? null,
    metered_item_id: metered?.id ?? null,
    current_period_start: isoFromUnix(item?.current_period_start),
    current_period_end: isoFromUnix(item?.current_period_end),
    cancel_at_period_end: Boolean(sub.cancel_at_period_end),
    canceled_at: isoFromUnix(sub.canceled_at),
    past_due_since: pastDue ? (current?.past_due_since ?? at) : null,
  };
}
