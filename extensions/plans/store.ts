// Each tenant's plan, per-tenant overrides and billing state. Read on every counted create, so rows are
// cached briefly; instances sharing PostgreSQL see a change within CACHE_MS.
import type { Knex } from 'knex';
import { planLimit, validationError } from '../../protocol/errors.js';
import type { BillingStatus, LimitName, PlanChange, PlanLimits, TenantPlan } from './contract.js';
import { checkedLimits, DEFAULT_PLANS } from './limits.js';

export const BILLING_STATUSES: readonly BillingStatus[] = ['none', 'active', 'past_due', 'canceled'];

interface Row {
  tenant_id: string;
  plan: string;
  limits: string;
  billing_status: BillingStatus;
}

const CACHE_MS = 5_000;

export class TenantPlans {
  private readonly cache = new Map<string, { at: number; row: Row | undefined }>();

  constructor(private readonly db: Knex, readonly plans: Record<string, PlanLimits>) {}

  async get(tenantId: string): Promise<TenantPlan> {
    const row = await this.row(tenantId);
    const plan = row?.plan ?? 'free';
    const base = this.plans[plan] ?? DEFAULT_PLANS.free!;
    return { plan, limits: { ...base, ...safeOverrides(row?.limits ?? '{}') }, billingStatus: row?.billing_status ?? 'none' };
  }

  /** Throws 403 PLAN_LIMIT when adding `adding` to `current` would pass the tenant's limit. */
  async requireWithin(tenantId: string, limit: LimitName, current: number, adding = 1): Promise<void> {
    const plan = await this.get(tenantId);
    const allowed = plan.limits[limit];
    if (current + adding > allowed) throw planLimit(plan.plan, limit, allowed, current);
  }

  requireKnown(plan: string, field = 'plan'): void {
    if (!this.plans[plan]) throw validationError(`${field} must be one of ${Object.keys(this.plans).join(', ')}`);
  }

  async set(tenantId: string, change: PlanChange): Promise<TenantPlan> {
    if (change.plan !== undefined) this.requireKnown(change.plan);
    if (change.billingStatus !== undefined && !BILLING_STATUSES.includes(change.billingStatus)) throw validationError(`billingStatus must be one of ${BILLING_STATUSES.join(', ')}`);
    const current = await this.get(tenantId);
    const row = { tenant_id: tenantId, plan: change.plan ?? current.plan, billing_status: change.billingStatus ?? current.billingStatus, updated_at: new Date().toISOString() };
    await this.db('tenant_plans').insert({ ...row, limits: '{}' }).onConflict('tenant_id').merge(['plan', 'billing_status', 'updated_at']);
    this.cache.delete(tenantId);
    return this.get(tenantId);
  }

  /** The plans the kernel's tenants table held (its legacy columns), taken over once; a row here wins. */
  async takeOver(rows: Array<{ id: string; plan?: unknown; limits?: unknown; billing_status?: unknown }>): Promise<number> {
    const now = new Date().toISOString();
    const taken = rows
      .filter((r) => typeof r.plan === 'string' && (r.plan !== 'free' || (r.limits ?? '{}') !== '{}' || (r.billing_status ?? 'none') !== 'none'))
      .map((r) => ({ tenant_id: r.id, plan: r.plan as string, limits: typeof r.limits === 'string' ? r.limits : '{}', billing_status: BILLING_STATUSES.includes(r.billing_status as BillingStatus) ? r.billing_status : 'none', updated_at: now }));
    for (let i = 0; i < taken.length; i += 200) await this.db('tenant_plans').insert(taken.slice(i, i + 200)).onConflict('tenant_id').ignore();
    return taken.length;
  }

  private async row(tenantId: string): Promise<Row | undefined> {
    const hit = this.cache.get(tenantId);
    if (hit && Date.now() - hit.at < CACHE_MS) return hit.row;
    const row = await this.db<Row>('tenant_plans').select('tenant_id', 'plan', 'limits', 'billing_status').where({ tenant_id: tenantId }).first();
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(tenantId, { at: Date.now(), row });
    return row;
  }
}

/** Per-tenant overrides; anything unreadable there counts as none (the plan's limits hold). */
function safeOverrides(text: string): Partial<PlanLimits> {
  try {
    return checkedLimits(JSON.parse(text), 'limits');
  } catch {
    return {};
  }
}
