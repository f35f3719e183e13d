// Tenants and their members. A member is an API key with a role; registering a tenant is public and
// returns its first owner key exactly once.
import { randomUUID } from 'node:crypto';
import type Router from '@koa/router';
import { conflict, notFound, RoostError } from '../../../protocol/errors.js';
import { validate } from '../../../protocol/validate.js';
import { isInstanceOwner, requireRole } from '../../auth/identity.js';
import type { KeyRecord, Role } from '../../auth/keys.js';
import type { Kernel } from '../../kernel.js';
import type { State } from '../app.js';

interface TenantRow {
  id: string;
  org: string;
  plan: string;
  created_at: string;
}

export function registerTenantRoutes(router: Router<State>, k: Kernel): void {
  router.post('/api/tenants/register', async (ctx) => {
    const body = validate<{ org: string; plan?: string }>('api/tenant-register.json', ctx.request.body);
    if (body.plan !== undefined && !k.tenantPlans.plans[body.plan]) throw new RoostError('VALIDATION_ERROR', `body.plan must be one of ${Object.keys(k.tenantPlans.plans).join(', ')}`);
    // Paid plans come from the payment processor (the billing extension): only the server's owner starts a tenant on one.
    const { identity } = ctx.state;
    const machineOwner = isInstanceOwner(identity) || (identity.local && identity.keyHash === null && !k.config.localAuthRequired);
    if (body.plan !== undefined && body.plan !== 'free' && !machineOwner) {
      throw new RoostError('FORBIDDEN', `a new tenant starts on the free plan; subscribe to ${body.plan} through billing`);
    }
    const plan = body.plan ?? 'free';
    const tenant: TenantRow = { id: randomUUID(), org: body.org, plan, created_at: new Date().toISOString() };
    await k.db('tenants').insert({ ...tenant, limits: '{}' });
    const { key, record } = await k.keys.create(tenant.id, 'owner', 'owner');
    k.audit.append({ tenantId: tenant.id, actor: ctx.state.identity.actor, action: 'tenant.register', resource: `tenant:${tenant.id}`, detail: { org: body.org, plan } });
    ctx.status = 201;
    ctx.body = { tenant: { ...toTenant(tenant), ...(await planView(k, tenant.id)) }, apiKey: key, keyHash: record.keyHash, role: 'owner', expiresAt: record.expiresAt };
  });

  router.get('/api/tenants/me', async (ctx) => {
    const { identity } = ctx.state;
    const row = await k.db<TenantRow>('tenants').where({ id: identity.tenantId }).first();
    if (!row) throw notFound('tenant');
    ctx.body = { ...toTenant(row), ...(await planView(k, row.id)), role: identity.role, keyHash: identity.keyHash };
  });

  router.get('/api/tenants/me/members', async (ctx) => {
    requireRole(ctx.state.identity, 'operator');
    ctx.body = { members: (await k.keys.list(ctx.state.identity.tenantId)).map(toMember) };
  });

  router.post('/api/tenants/me/members', async (ctx) => {
    const { identity } = ctx.state;
    requireRole(identity, 'owner');
    const body = validate<{ role: Role; label?: string; expiresInDays?: number }>('api/member-create.json', ctx.request.body);
    await k.tenantPlans.require(identity.tenantId, 'members', await k.keys.countValid(identity.tenantId));
    const expiresAt = body.expiresInDays ? new Date(Date.now() + body.expiresInDays * 86_400_000).toISOString() : undefined;
    const { key, record } = await k.keys.create(identity.tenantId, body.role, body.label ?? '', expiresAt);
    k.audit.append({ tenantId: identity.tenantId, actor: identity.actor, action: 'grant.member_added', resource: `member:${record.keyHash}`, detail: { role: body.role } });
    ctx.status = 201;
    ctx.set('Cache-Control', 'no-store'); // a new key: never kept (not for an Idempotency-Key either)
    ctx.body = { ...toMember(record), apiKey: key };
  });

  router.delete('/api/tenants/me/members/:keyHash', async (ctx) => {
    const { identity } = ctx.state;
    requireRole(identity, 'owner');
    const keyHash = ctx.params.keyHash!;
    const target = await k.keys.get(keyHash);
    if (!target || target.tenantId !== identity.tenantId) throw notFound('member');
    if (target.role === 'owner') {
      // Only keys that still work count: a rotated-out or expired owner key cannot run the tenant.
      const now = Date.now();
      const others = (await k.keys.list(identity.tenantId)).filter((m) => m.role === 'owner' && m.keyHash !== keyHash && (!m.expiresAt || Date.parse(m.expiresAt) > now));
      if (others.length === 0) throw conflict('a tenant keeps at least one owner with a valid key');
    }
    await k.keys.revoke(identity.tenantId, keyHash);
    k.audit.append({ tenantId: identity.tenantId, actor: identity.actor, action: 'grant.member_removed', resource: `member:${keyHash}`, detail: { role: target.role } });
    ctx.status = 204;
  });
}

function toTenant(row: TenantRow) {
  return { id: row.id, org: row.org, plan: row.plan, createdAt: row.created_at };
}

async function planView(k: Kernel, tenantId: string) {
  const plan = await k.tenantPlans.mustGet(tenantId);
  const readOnly = await k.readOnly.get(tenantId);
  return { limits: plan.limits, billingStatus: plan.billingStatus, readOnly: readOnly?.readOnly ?? false, readOnlyAt: readOnly?.at ?? null };
}

function toMember(record: KeyRecord) {
  return { keyHash: record.keyHash, role: record.role, label: record.label, createdAt: record.createdAt, expiresAt: record.expiresAt };
}
