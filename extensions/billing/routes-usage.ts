// Usage, invoices and prices. Usage is what the tenant's agents spent in the billing period, read from
// the credit ledger (credits' internal route) and reported to Stripe as a meter event of the period's
// running total: the meter aggregates with `last`, and the event's identifier and Idempotency-Key name
// that total, so reading (or retrying) twice reports it once.
import { RoostError, validationError } from '../../protocol/errors.js';
import type { ExtensionContext, RouteHandler } from '../../sdk/extension.js';
import { ok, queryString } from '../../sdk/http.js';
import { CreditsClient } from '../credits/contract.js';
import { PlansClient } from '../plans/contract.js';
import { requireReader } from './access.js';
import { billingConfig, stripeClient } from './config.js';
import { isoFromUnix } from './numbers.js';
import { BillingStore, type SubscriptionRow } from './store.js';
import { atStripe } from './stripe-errors.js';
import { isPaying } from './sync.js';

function period(row: SubscriptionRow | undefined, now = new Date()): { start: string; end: string } {
  if (row?.current_period_start && row.current_period_end) return { start: row.current_period_start, end: row.current_period_end };
  return { start: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString(), end: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString() };
}

async function report(ctx: ExtensionContext, row: SubscriptionRow, periodStart: string, spent: number, reported: number): Promise<void> {
  const config = billingConfig(ctx);
  const identifier = `roost-usage-${row.tenant_id}-${Date.parse(periodStart) / 1000}-${spent}`;
  const stripe = await stripeClient(ctx);
  await atStripe('record the usage', () => stripe.billing.meterEvents.create(
    { event_name: config.meterEvent, identifier, payload: { stripe_customer_id: row.customer_id, value: String(spent) } },
    { idempotencyKey: identifier },
  ));
  await new BillingStore(ctx.db).recordUsage({ identifier, tenant_id: row.tenant_id, period_start: periodStart, micro_units: spent - reported, cumulative: spent });
}

export const usageRoutes: Record<string, RouteHandler> = {
  async 'GET /api/billing/usage/:tenantId'(req, ctx) {
    const tenantId = req.params.tenantId!;
    requireReader(req.auth, tenantId);
    await ctx.host.tenant(tenantId);
    const store = new BillingStore(ctx.db);
    const row = await store.get(tenantId);
    const { start, end } = period(row);
    const reply = await new CreditsClient(ctx.host).usage(start, end, { tenantId });
    if (reply.status !== 200 || !reply.body) throw new RoostError('UPSTREAM_ERROR', `the credit ledger answered ${reply.status} for the tenant's usage`);
    const spent = reply.body.spentMicroUnits;
    let reported = await store.reported(tenantId, start);
    if (row?.subscription_id && isPaying(row.status) && spent > reported) {
      await report(ctx, row, start, spent, reported);
      reported = spent;
    }
    return ok({ tenantId, unit: 'microUnits', periodStart: start, periodEnd: end, spentMicroUnits: spent, reportedMicroUnits: reported, days: reply.body.days, history: await store.records(tenantId) });
  },

  async 'GET /api/billing/invoices/:tenantId'(req, ctx) {
    const tenantId = req.params.tenantId!;
    requireReader(req.auth, tenantId);
    await ctx.host.tenant(tenantId);
    const row = await new BillingStore(ctx.db).get(tenantId);
    if (!row) return ok({ tenantId, invoices: [] });
    const stripe = await stripeClient(ctx);
    const list = await atStripe('list the invoices', () => stripe.invoices.list({ customer: row.customer_id, limit: 24 }));
    return ok({
      tenantId,
      invoices: list.data.map((inv) => ({
        id: inv.id, number: inv.number, status: inv.status, currency: inv.currency, amountDue: inv.amount_due, amountPaid: inv.amount_paid,
        periodStart: isoFromUnix(inv.period_start), periodEnd: isoFromUnix(inv.period_end), createdAt: isoFromUnix(inv.created), hostedInvoiceUrl: inv.hosted_invoice_url ?? null,
      })),
    });
  },

  async 'GET /api/billing/calculate'(req, ctx) {
    const text = queryString(req.query, 'credits');
    const credits = text === undefined || text === '' ? NaN : Number(text);
    if (!Number.isSafeInteger(credits) || credits < 0 || credits > 1_000_000_000) throw validationError('query.credits must be a whole number of credits from 0 to 1,000,000,000');
    const { plan } = await new PlansClient(ctx.host).of(req.auth.tenantId, { requestId: req.id });
    const config = billingConfig(ctx);
    const unitAmountCents = config.creditCents[plan] ?? config.creditCents.free ?? 100;
    return ok({ credits, plan, currency: config.currency, unitAmountCents, amountCents: credits * unitAmountCents });
  },
};
