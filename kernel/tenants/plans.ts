// Plans and each tenant's place in one: the limits a plan sets (names and numbers from configuration,
// ROOST_PLANS), the tenant's own overrides (the `limits` column), and the billing state the billing
// extension reports. Read on every counted create, so rows are cached briefly; instances sharing
// PostgreSQL see a change within CACHE_MS.
import type { Knex } from 'knex';
import { notFound, planLimit, validationError } from '../../protocol/errors.js';

export const LIMIT_NAMES = ['agents', 'concurrentSessions', 'projects', 'creditsPerMonth', 'members'] as const;
export type LimitName = (typeof LIMIT_NAMES)[number];
export type PlanLimits = Record<LimitName, number>;

export const BILLING_STATUSES = ['none', 'active', 'past_due', 'canceled'] as const;
export type BillingStatus = (typeof BILLING_STATUSES)[number];

/** creditsPerMonth counts whole credits put into the tenant's wallets in a calendar month (UTC). */
export const DEFAULT_PLANS: Record<string, PlanLimits> = {
  free: { agents: 25, concurrentSessions: 10, projects: 25, creditsPerMonth: 100, members: 10 },
  pro: { agents: 250, concurrentSessions: 50, projects: 250, creditsPerMonth: 10_000, members: 100 },
  enterprise: { agents: 10_000, concurrentSessions: 1_000, projects: 10_000, creditsPerMonth: 10_000_000, members: 1_000 },
};

export interface TenantPlan {
  tenantId: string;
  plan: string;
  limits: PlanLimits;
  billingStatus: BillingStatus;
}

export interface PlanChange {
  plan?: string;
  billingStatus?: BillingStatus;
}

interface Row {
  id: string;
  plan: string;
  limits: string;
  billing_status: BillingStatus | null;
}

const CACHE_MS = 5_000;

/** ROOST_PLANS: a JSON object of plans, each a partial set of limits; merged over the defaults. */
export function plansFrom(text: string | undefined): Record<string, PlanLimits> {
  if (!text) return DEFAULT_PLANS;
  let given: unknown;
  try {
    given = JSON.parse(text);
  } catch {
    throw validationError('ROOST_PLANS must be a JSON object: {"free": {"agents": 10, …}, …}');
  }
  if (typeof given !== 'object' || given === null || Array.isArray(given)) throw validationError('ROOST_PLANS must be a JSON object of plans');
  const plans: Record<string, PlanLimits> = { ...DEFAULT_PLANS };
  for (const [name, limits] of Object.entries(given as Record<string, unknown>)) {
    if (!/^[a-z][a-z0-9_-]{0,31}$/.test(name)) throw validationError(`ROOST_PLANS: plan name "${name}" must be lower-case letters, digits, - or _`);
    plans[name] = { ...(DEFAULT_PLANS[name] ?? DEFAULT_PLANS.free!), ...checkedLimits(limits, `ROOST_PLANS.${name}`) };
  }
  return plans;
}

function checkedLimits(value: unknown, where: string): Partial<PlanLimits> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw validationError(`${where} must be an object of limits`);
  const out: Partial<PlanLimits> = {};
  for (const [key, n] of Object.entries(value as Record<string, unknown>)) {
    if (!(LIMIT_NAMES as readonly string[]).includes(key)) throw validationError(`${where}.${key} is not a limit; the limits are ${LIMIT_NAMES.join(', ')}`);
    if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) throw validationError(`${where}.${key} must be a whole number ≥ 0`);
    out[key as LimitName] = n;
  }
  return out;
}

export class TenantPlans {
  private readonly cache = new Map<string, { at: number; row: Row | undefined }>();

  constructor(private readonly db: Knex, readonly plans: Record<string, PlanLimits>) {}

  async get(tenantId: string): Promise<TenantPlan | undefined> {
    const row = await this.row(tenantId);
    return row && this.toPlan(row);
  }

  async mustGet(tenantId: string): Promise<TenantPlan> {
    const plan = await this.get(tenantId);
    if (!plan) throw notFound(`tenant ${tenantId}`);
    return plan;
  }

  async set(tenantId: string, change: PlanChange): Promise<TenantPlan> {
    if (change.plan !== undefined && !this.plans[change.plan]) throw validationError(`plan must be one of ${Object.keys(this.plans).join(', ')}`);
    if (change.billingStatus !== undefined && !BILLING_STATUSES.includes(change.billingStatus)) throw validationError(`billingStatus must be one of ${BILLING_STATUSES.join(', ')}`);
    const update: Partial<Row> = {};
    if (change.plan !== undefined) update.plan = change.plan;
    if (change.billingStatus !== undefined) update.billing_status = change.billingStatus;
    if (Object.keys(update).length > 0) {
      const n = await this.db('tenants').where({ id: tenantId }).update(update);
      if (n === 0) throw notFound(`tenant ${tenantId}`);
    }
    this.cache.delete(tenantId);
    return this.mustGet(tenantId);
  }

  /** Throws 403 PLAN_LIMIT when adding `adding` to `current` would pass the tenant's limit. */
  async require(tenantId: string, limit: LimitName, current: number, adding = 1): Promise<void> {
    const plan = await this.mustGet(tenantId);
    const allowed = plan.limits[limit];
    if (current + adding > allowed) throw planLimit(plan.plan, limit, allowed, current);
  }

  private toPlan(row: Row): TenantPlan {
    const base = this.plans[row.plan] ?? DEFAULT_PLANS.free!;
    const overrides = safeOverrides(row.limits);
    return {
      tenantId: row.id,
      plan: row.plan,
      limits: { ...base, ...overrides },
      billingStatus: row.billing_status ?? 'none',
    };
  }

  private async row(tenantId: string): Promise<Row | undefined> {
    const hit = this.cache.get(tenantId);
    if (hit && Date.now() - hit.at < CACHE_MS) return hit.row;
    const row = await this.db<Row>('tenants').select('id', 'plan', 'limits', 'billing_status').where({ id: tenantId }).first();
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
