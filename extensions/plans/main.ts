// The plans extension: owns the plans (ROOST_PLANS), each tenant's plan, overrides and billing state,
// and answers the kernel's tenant hooks and the contract's callers. On its first start it takes over the
// plans the kernel's tenants table held before (legacy_tenant_columns), so no tenant loses its plan.
import { runExtension, type ExtensionContext } from '../../sdk/extension.js';
import { plansFrom } from './limits.js';
import { migrations } from './migrations.js';
import { planRoutes } from './routes.js';
import { TenantPlans } from './store.js';

const HANDOVER = 'kernel_tenant_columns';

async function takeOver(ctx: ExtensionContext, store: TenantPlans): Promise<void> {
  if (await ctx.db('handover').where({ name: HANDOVER }).first()) return;
  const rows = await ctx.host.legacyTenantColumns(['plan', 'limits', 'billing_status']);
  const taken = await store.takeOver(rows);
  await ctx.db('handover').insert({ name: HANDOVER, at: new Date().toISOString() }).onConflict('name').ignore();
  if (taken > 0) ctx.host.output(`took over ${taken} tenants' plans from the kernel's tenants table`);
}

// The store (with its cache) lives in this closure from setup on: routes are served only after setup.
function start(): void {
  let plans: TenantPlans | undefined;
  let setters: string[] = [];
  runExtension({
    migrations,
    async setup(ctx) {
      const settings = (ctx.init.config?.settings ?? {}) as Record<string, string>;
      const store = new TenantPlans(ctx.db, plansFrom(settings.PLANS));
      await takeOver(ctx, store);
      plans = store;
      setters = (settings.PLAN_SETTERS ?? 'billing').split(',').map((name) => `extension:${name.trim()}`);
    },
    routes: planRoutes(() => plans!, () => setters),
  });
}

start();
