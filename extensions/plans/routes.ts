// The plans routes, all internal: a tenant's plan (the kernel's profile hook and the contract's read),
// a change of plan or billing state (billing), and the kernel's two questions — may a new tenant start
// as asked, and may a tenant add a member.
import { forbidden } from '../../protocol/errors.js';
import { validate } from '../../protocol/validate.js';
import type { ExtensionContext, RouteHandler } from '../../sdk/extension.js';
import { ok } from '../../sdk/http.js';
import { PLANS_EVENTS, type PlanChange, type TenantPlan } from './contract.js';
import type { TenantPlans } from './store.js';

/** Who the kernel's tenant hooks run as (kernel/tenants/tenant-hooks.ts). */
const KERNEL_ACTOR = 'kernel:tenants';

const CHANGE_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: { plan: { type: 'string' }, billingStatus: { type: 'string' } },
};

const pick = (plan: TenantPlan) => ({ plan: plan.plan, billingStatus: plan.billingStatus });

/** What the kernel's tenant-creation hook sends: the registration's body, and whether the server's owner asked. */
interface Created {
  tenantId: string;
  body: { plan?: string };
  byOwner: boolean;
}

/**
 * Sent before the answer, so the kernel has forgotten the plans it kept (GET …/tenants/:tenantId is
 * [server.cache]d) by the time the caller hears the change is made. For no tenant: the kernel keeps a
 * plan under the tenant that read it, which need not be the one it describes.
 */
function announceChange(ctx: ExtensionContext, tenantId: string): void {
  ctx.host.emit(PLANS_EVENTS.changed, { tenantId }, null);
}

export function planRoutes(plans: () => TenantPlans, setters: () => string[]): Record<string, RouteHandler> {
  return {
    async 'GET /api/internal/plans/tenants/:tenantId'(req) {
      return ok(await plans().get(req.params.tenantId!));
    },

    async 'PUT /api/internal/plans/tenants/:tenantId'(req, ctx) {
      // Only the extensions named in PLAN_SETTERS (billing by default), calling as themselves, move a tenant.
      if (!setters().includes(req.auth.actor)) throw forbidden(`${req.auth.actor} may not change a tenant's plan`);
      const change = validate<PlanChange>(CHANGE_SCHEMA, req.body);
      const tenantId = req.params.tenantId!;
      const before = await plans().get(tenantId);
      const after = await plans().set(tenantId, change);
      announceChange(ctx, tenantId);
      ctx.host.audit('tenant.plan_changed', `tenant:${tenantId}`, { from: pick(before), to: pick(after), by: req.auth.actor });
      return ok(after);
    },

    async 'POST /api/internal/plans/tenant-created'(req, ctx) {
      if (req.auth.actor !== KERNEL_ACTOR) throw forbidden('only the kernel reports a new tenant');
      const { tenantId, body, byOwner } = req.body as Created;
      const store = plans();
      if (body.plan !== undefined) store.requireKnown(body.plan, 'body.plan');
      // Paid plans come from the payment processor (billing): only the server's owner starts a tenant on one.
      if (body.plan !== undefined && body.plan !== 'free' && !byOwner) throw forbidden(`a new tenant starts on the free plan; subscribe to ${body.plan} through billing`);
      const plan = body.plan ?? 'free';
      if (plan !== 'free') {
        await store.set(tenantId, { plan });
        announceChange(ctx, tenantId);
      }
      return ok({ audit: { plan }, profile: await store.get(tenantId) });
    },

    async 'POST /api/internal/plans/tenants/:tenantId/limit-check'(req) {
      if (req.auth.actor !== KERNEL_ACTOR) throw forbidden('only the kernel asks before adding a member');
      const { current } = req.body as { current: number };
      await plans().requireWithin(req.params.tenantId!, 'members', current);
      return ok({ allowed: true });
    },
  };
}
