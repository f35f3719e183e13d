// The plans extension's contract with its callers: the kernel's tenant hooks (named in plugin.toml),
// the extensions that create what a plan counts (agents, projects, sessions, credits) and billing, which
// moves a tenant to the plan and billing state its payments say. Imports nothing of plans' own code.
import { planLimit, RoostError } from '../../protocol/errors.js';
import type { CallAs, HostClient } from '../../sdk/host-client.js';
import { callRoute } from '../../sdk/route-call.js';

export const PLANS_ROUTES = {
  tenant: 'GET /api/internal/plans/tenants/:tenantId',
  setTenant: 'PUT /api/internal/plans/tenants/:tenantId',
} as const;

/** Announced (for no tenant) after a tenant's plan or billing state changes: the kernel forgets the plans it answered from its cache. */
export const PLANS_EVENTS = { changed: 'plans.changed' } as const;

export type LimitName = 'agents' | 'concurrentSessions' | 'projects' | 'creditsPerMonth' | 'members';
export type PlanLimits = Record<LimitName, number>;
export type BillingStatus = 'none' | 'active' | 'past_due' | 'canceled';

/** A tenant's plan as GET /api/tenants/me shows it. */
export interface TenantPlan {
  plan: string;
  limits: PlanLimits;
  billingStatus: BillingStatus;
}

export interface PlanChange {
  plan?: string;
  billingStatus?: BillingStatus;
}

/**
 * A caller's copy of the plans it read, for a path that asks on every call (a counted create): kept
 * until plans announces a change or PLAN_CACHE_MS pass. The caller declares `broadcast =
 * ["plans.changed"]` (every instance's running copy hears it) and hands its events to `heard`. A read
 * that began before a change is not kept: it may have been answered before the change was made.
 */
export class PlanCache {
  private readonly plans = new Map<string, { plan: TenantPlan; at: number }>();
  private changes = 0;

  /** Forgets every kept plan when `topic` is plans.changed (a caller's event handler hands it each topic it hears). */
  heard(topic: string): void {
    if (topic !== PLANS_EVENTS.changed) return;
    this.changes++;
    this.plans.clear();
  }

  get(tenantId: string): TenantPlan | undefined {
    const kept = this.plans.get(tenantId);
    return kept && performance.now() - kept.at < PLAN_CACHE_MS ? kept.plan : undefined;
  }

  /** What `keep` needs to tell a read that a change overtook. */
  get generation(): number {
    return this.changes;
  }

  keep(tenantId: string, plan: TenantPlan, readAt: number): void {
    if (readAt !== this.changes) return;
    if (this.plans.size >= MAX_CACHED_PLANS) this.plans.clear();
    this.plans.set(tenantId, { plan, at: performance.now() });
  }
}

/** How long a kept plan is used without a word from plans: the bound on staleness should an announcement be lost. */
const PLAN_CACHE_MS = 30_000;
const MAX_CACHED_PLANS = 10_000;

export class PlansClient {
  /** cache: the caller's PlanCache, for requireWithin to ask plans only when it holds no plan of the tenant. */
  constructor(private readonly host: HostClient, private readonly cache?: PlanCache) {}

  async of(tenantId: string, as: CallAs): Promise<TenantPlan> {
    return answered(await callRoute<TenantPlan>(this.host, PLANS_ROUTES.tenant, { params: { tenantId } }, as));
  }

  /** Moves a tenant to a plan or billing state (billing: what the payment processor reported). */
  async set(tenantId: string, change: PlanChange, as: CallAs): Promise<TenantPlan> {
    return answered(await callRoute<TenantPlan>(this.host, PLANS_ROUTES.setTenant, { params: { tenantId }, body: change }, as));
  }

  /**
   * Throws 403 PLAN_LIMIT when adding `adding` to the tenant's `current` count would pass its plan's limit.
   * Callers declare `uses = ["plans"]`: without the plans extension (nobody serves its route) nothing is limited.
   */
  async requireWithin(tenantId: string, limit: LimitName, current: number, as: CallAs, adding = 1): Promise<void> {
    let plan = this.cache?.get(tenantId);
    if (!plan) {
      const readAt = this.cache?.generation ?? 0;
      const reply = await callRoute<TenantPlan>(this.host, PLANS_ROUTES.tenant, { params: { tenantId } }, as);
      if (reply.status === 404 && (reply.body as { code?: string } | null)?.code === 'ROUTE_NOT_FOUND') return;
      plan = answered(reply);
      this.cache?.keep(tenantId, plan, readAt);
    }
    const allowed = plan.limits[limit];
    if (current + adding > allowed) throw planLimit(plan.plan, limit, allowed, current);
  }
}

/** The body of a 2xx answer; a refusal goes on as the error it is (a missing plans extension: 404). */
function answered<T>(reply: { status: number; body: T }): T {
  if (reply.status < 300) return reply.body;
  const body = (reply.body ?? {}) as { error?: string; code?: string; details?: unknown };
  throw new RoostError(body.code ?? 'INTERNAL', body.error ?? `plans answered ${reply.status}`, { status: reply.status, details: body.details });
}
