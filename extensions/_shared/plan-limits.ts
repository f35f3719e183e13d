// The limits of a tenant's plan, as the kernel knows them: an extension that creates something counted
// by a plan (agents, projects, concurrent sessions, credits a month) checks before it creates.
import { planLimit } from '../../protocol/errors.js';
import type { HostClient, TenantPlanView } from './host-client.js';

export type LimitName = keyof TenantPlanView['limits'];

/** Throws 403 PLAN_LIMIT when adding `adding` to the tenant's `current` count would pass its plan's limit. */
export async function requireWithinPlan(host: HostClient, as: { requestId: string } | { tenantId: string }, limit: LimitName, current: number, adding = 1): Promise<void> {
  const plan = await host.tenantPlan(as);
  const allowed = plan.limits[limit];
  if (current + adding > allowed) throw planLimit(plan.plan, limit, allowed, current);
}
