// Tenants and their members. A member is an API key with a role; registering a tenant is public and
// returns its first owner key exactly once. What extensions hold about a tenant (its plan and limits) comes
// from their tenant hooks (kernel/tenants/tenant-hooks.ts).
import { randomUUID } from 'node:crypto';
import type Router from '@koa/router';
import { conflict, notFound } from '../../../protocol/errors.js';
import { validate } from '../../../protocol/validate.js';
import { isInstanceOwner, requireRole } from '../../auth/identity.js';
import type { KeyRecord, Role } from '../../auth/keys.js';
import type { Kernel } from '../../kernel.js';
import { TenantHooks } from '../../tenants/tenant-hooks.js';
import type { State } from '../app.js';

interface TenantRow {
  id: string;
  org: string;
  created_at: string;
}

export function registerTenantRoutes(router: Router<State>, k: Kernel): void {
  const hooks = new TenantHooks(k.registry, k.dispatcher);

  router.post('/api/tenants/register', async (ctx) => {
    const body = validate<{ org: string }>('api/tenant-register.json', ctx.request.body);
    // The hooks decide what the body's other fields may ask (a paid plan: the server's owner only).
    const { identity } = ctx.state;
    const machineOwner = isInstanceOwner(identity) || (identity.local && identity.keyHash === null && !k.config.localAuthRequired);
    const tenant: TenantRow = { id: randomUUID(), org: body.org, created_at: new Date().toISOString() };
    const created = await hooks.create(tenant.id, body, machineOwner);
    await k.db('tenants').insert(tenant);
    const { key, record } = await k.keys.create(tenant.id, 'owner', 'owner');
    k.audit.append({ tenantId: tenant.id, actor: ctx.state.identity.actor, action: 'tenant.register', resource: `tenant:${tenant.id}`, detail: { org: body.org, ...created.audit } });
    ctx.status = 201;
    ctx.body = { tenant: { ...toTenant(tenant, created.profile), ...(await readOnlyView(k, tenant.id)) }, apiKey: key, keyHash: record.keyHash, role: 'owner', expiresAt: record.expiresAt };
  });

  router.get('/api/tenants/me', async (ctx) => {
    const { identity } = ctx.state;
    const row = await k.db<TenantRow>('tenants').where({ id: identity.tenantId }).first();
    if (!row) throw notFound('tenant');
    ctx.body = { ...toTenant(row, await hooks.profile(row.id)), ...(await readOnlyView(k, row.id)), role: identity.role, keyHash: identity.keyHash };
  });

  router.get('/api/tenants/me/members', async (ctx) => {
    requireRole(ctx.state.identity, 'operator');
    ctx.body = { members: (await k.keys.list(ctx.state.identity.tenantId)).map(toMember) };
  });

  router.post('/api/tenants/me/members', async (ctx) => {
    const { identity } = ctx.state;
    requireRole(identity, 'owner');
    const body = validate<{ role: Role; label?: string; expiresInDays?: number }>('api/member-create.json', ctx.request.body);
    await hooks.member(identity.tenantId, await k.keys.countValid(identity.tenantId));
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

/** The hooks' fields go after the tenant's name (as GET /api/tenants/me has always shown a plan there). */
function toTenant(row: TenantRow, profile: Record<string, unknown>) {
  return { id: row.id, org: row.org, ...profile, createdAt: row.created_at };
}

async function readOnlyView(k: Kernel, tenantId: string) {
  const readOnly = await k.readOnly.get(tenantId);
  return { readOnly: readOnly?.readOnly ?? false, readOnlyAt: readOnly?.at ?? null };
}

function toMember(record: KeyRecord) {
  return { keyHash: record.keyHash, role: record.role, label: record.label, createdAt: record.createdAt, expiresAt: record.expiresAt };
}
