// RFC 8628 over HTTP. The device's two endpoints answer exactly as RFC 8628 §3.2/§3.5 and RFC 6749 §5
// say (JSON, error codes in `error`, 400 for every token error, no caching); approving is a signed-in
// person's act on behalf of their tenant and role, from the verification page or any client.
import type Router from '@koa/router';
import type Koa from 'koa';
import { RoostError } from '../../../protocol/errors.js';
import { ROLE_RANK } from '../../auth/identity.js';
import type { Role } from '../../auth/keys.js';
import type { Kernel } from '../../kernel.js';
import type { State } from '../app.js';
import { verifyPage } from './verify-page.js';

const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
const ROLES: Role[] = ['viewer', 'operator', 'owner'];

/** An RFC 6749 §5.2 error answer. */
function oauthError(ctx: Koa.Context, error: string, description: string): void {
  ctx.status = 400;
  ctx.set('Cache-Control', 'no-store');
  ctx.body = { error, error_description: description };
}

function field(body: unknown, name: string): string | undefined {
  const value = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined;
  return typeof value === 'string' && value.length > 0 && value.length <= 512 ? value : undefined;
}

export function registerDeviceRoutes(router: Router<State>, k: Kernel): void {
  router.post('/api/auth/device', async (ctx) => {
    const clientId = field(ctx.request.body, 'client_id');
    if (!clientId) return oauthError(ctx, 'invalid_request', 'client_id is required (a short name of the client, up to 512 characters)');
    const grant = await k.devices.start(clientId);
    const verificationUri = `${k.config.publicUrl ?? `${ctx.protocol}://${ctx.host}`}/api/auth/verify`;
    ctx.set('Cache-Control', 'no-store');
    ctx.body = {
      device_code: grant.deviceCode,
      user_code: grant.userCode,
      verification_uri: verificationUri,
      verification_uri_complete: `${verificationUri}?user_code=${encodeURIComponent(grant.userCode)}`,
      expires_in: grant.expiresIn,
      interval: grant.interval,
    };
  });

  router.post('/api/auth/device/token', async (ctx) => {
    const body = ctx.request.body;
    const grantType = field(body, 'grant_type');
    const deviceCode = field(body, 'device_code');
    const clientId = field(body, 'client_id');
    if (!grantType || !deviceCode || !clientId) return oauthError(ctx, 'invalid_request', 'grant_type, device_code and client_id are required');
    if (grantType !== DEVICE_GRANT) return oauthError(ctx, 'unsupported_grant_type', `grant_type must be ${DEVICE_GRANT}`);
    const outcome = await k.devices.poll(deviceCode, clientId);
    if (!outcome.ok) return oauthError(ctx, outcome.error, outcome.description);
    k.audit.append({ tenantId: outcome.tenantId, actor: `device:${clientId}`.slice(0, 200), action: 'grant.device_key_issued', resource: `tenant:${outcome.tenantId}`, detail: { role: outcome.role } });
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Pragma', 'no-cache');
    ctx.body = {
      access_token: outcome.key,
      token_type: 'Bearer',
      ...(outcome.expiresAt ? { expires_in: Math.max(0, Math.floor((Date.parse(outcome.expiresAt) - Date.now()) / 1000)) } : {}),
      scope: `tenant:${outcome.tenantId} role:${outcome.role}`,
    };
  });

  router.post('/api/auth/device/authorize', async (ctx) => {
    const { identity } = ctx.state;
    const body = ctx.request.body;
    const userCode = field(body, 'user_code');
    const action = field(body, 'action');
    const asked = field(body, 'role');
    if (!userCode) throw new RoostError('VALIDATION_ERROR', 'body.user_code is required');
    if (action !== 'approve' && action !== 'deny') throw new RoostError('VALIDATION_ERROR', 'body.action must be approve or deny');
    if (asked !== undefined && !ROLES.includes(asked as Role)) throw new RoostError('VALIDATION_ERROR', `body.role must be one of ${ROLES.join(', ')}`);
    const role = (asked as Role | undefined) ?? identity.role;
    if (ROLE_RANK[role] > ROLE_RANK[identity.role]) throw new RoostError('FORBIDDEN', `a ${identity.role} cannot hand out the ${role} role`);
    const caller = identity.keyHash ?? `ip:${ctx.ip}`;
    if (action === 'deny') {
      const { clientId } = await k.devices.decide(userCode, caller, { approve: false, actor: identity.actor });
      ctx.body = { status: 'denied', clientId };
      return;
    }
    // The key the device will collect is a member of the tenant: the plan's member limit holds.
    await k.tenantPlans.require(identity.tenantId, 'members', await k.keys.countValid(identity.tenantId));
    const { clientId } = await k.devices.decide(userCode, caller, { approve: true, tenantId: identity.tenantId, role, actor: identity.actor });
    k.audit.append({ tenantId: identity.tenantId, actor: identity.actor, action: 'grant.device_approved', resource: `device:${clientId}`.slice(0, 200), detail: { role } });
    ctx.body = { status: 'approved', clientId, tenantId: identity.tenantId, role };
  });

  router.get('/api/auth/verify', (ctx) => verifyPage(ctx));
}
