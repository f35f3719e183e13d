// The device-login extension: RFC 8628 over HTTP. The device's two endpoints answer exactly as RFC 8628
// §3.2/§3.5 and RFC 6749 §5 say (form or JSON in, JSON out, error codes in `error`, 400 for every token
// error, no caching); approving is a signed-in person's act on behalf of their tenant and role, from the
// dashboard's "Approve a device" page (the verification_uri) or any client. It holds the narrow `keys`
// capability: a key grant for the approver of the request it serves, minted when the device collects it.
import { RoostError } from '../../protocol/errors.js';
import type { AuthContext, RouteReply } from '../../protocol/messages.js';
import { runExtension, type ExtensionContext, type RouteRequest } from '../../sdk/extension.js';
import { integerSetting } from '../../sdk/settings.js';
import { DeviceAuthorizations } from './codes.js';
import { migrations } from './migrations.js';

type Role = AuthContext['role'];
const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
const ROLES: Role[] = ['viewer', 'operator', 'owner'];
const RANK: Record<Role, number> = { viewer: 0, operator: 1, owner: 2 };
/** A code lives at most an hour: as long as the kernel's key grant for it may. */
const MAX_CODE_TTL_SECONDS = 3_600;

/** An RFC 6749 §5.2 error answer. */
const oauthError = (error: string, description: string): RouteReply => ({ status: 400, headers: { 'cache-control': 'no-store' }, body: { error, error_description: description } });

/** The body of a raw route: a form (as RFC 8628 has it) or JSON; anything else is refused. */
function formOrJson(req: RouteRequest): unknown {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  const text = typeof req.body === 'string' ? req.body : '';
  if (type === 'application/x-www-form-urlencoded') return Object.fromEntries(new URLSearchParams(text));
  if (type === 'application/json') {
    try {
      return text === '' ? {} : JSON.parse(text);
    } catch {
      throw new RoostError('VALIDATION_ERROR', 'the body is not valid JSON');
    }
  }
  throw new RoostError('VALIDATION_ERROR', 'send the body as application/x-www-form-urlencoded (RFC 8628) or application/json');
}

function field(body: unknown, name: string): string | undefined {
  const value = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined;
  return typeof value === 'string' && value.length > 0 && value.length <= 512 ? value : undefined;
}

/** The codes, over this extension's database; what they remember (failed guesses too) is stored there. */
function devicesOf(ctx: ExtensionContext): DeviceAuthorizations {
  return new DeviceAuthorizations(ctx.db, ctx.host, {
    ttlSeconds: integerSetting(ctx, 'CODE_TTL_SECONDS', 600, 1, MAX_CODE_TTL_SECONDS),
    intervalSeconds: integerSetting(ctx, 'POLL_INTERVAL_SECONDS', 5, 1, 3_600),
  });
}

runExtension({
  migrations,
  // A bad setting stops the start with a clear error rather than failing each request.
  setup: (ctx) => void devicesOf(ctx),
  routes: {
    async 'POST /api/auth/device'(req, ctx) {
      const clientId = field(formOrJson(req), 'client_id');
      if (!clientId) return oauthError('invalid_request', 'client_id is required (a short name of the client, up to 512 characters)');
      const grant = await devicesOf(ctx).start(clientId);
      // The dashboard's "Approve a device" page, at the server's public address or the one the device reached.
      const publicUrl = ctx.init.config?.publicUrl as string | null | undefined;
      const verificationUri = `${publicUrl ?? `http://${req.headers.host}`}/ui/#/device`;
      return {
        status: 200,
        headers: { 'cache-control': 'no-store' },
        body: {
          device_code: grant.deviceCode,
          user_code: grant.userCode,
          verification_uri: verificationUri,
          verification_uri_complete: `${verificationUri}/${encodeURIComponent(grant.userCode)}`,
          expires_in: grant.expiresIn,
          interval: grant.interval,
        },
      };
    },

    async 'POST /api/auth/device/token'(req, ctx) {
      const body = formOrJson(req);
      const grantType = field(body, 'grant_type');
      const deviceCode = field(body, 'device_code');
      const clientId = field(body, 'client_id');
      if (!grantType || !deviceCode || !clientId) return oauthError('invalid_request', 'grant_type, device_code and client_id are required');
      if (grantType !== DEVICE_GRANT) return oauthError('unsupported_grant_type', `grant_type must be ${DEVICE_GRANT}`);
      const outcome = await devicesOf(ctx).poll(deviceCode, clientId);
      if (!outcome.ok) return oauthError(outcome.error, outcome.description);
      return {
        status: 200,
        headers: { 'cache-control': 'no-store', pragma: 'no-cache' },
        body: {
          access_token: outcome.key,
          token_type: 'Bearer',
          ...(outcome.expiresAt ? { expires_in: Math.max(0, Math.floor((Date.parse(outcome.expiresAt) - Date.now()) / 1000)) } : {}),
          scope: `tenant:${outcome.tenantId} role:${outcome.role}`,
        },
      };
    },

    async 'POST /api/auth/device/authorize'(req, ctx) {
      const { auth } = req;
      const userCode = field(req.body, 'user_code');
      const action = field(req.body, 'action');
      const asked = field(req.body, 'role');
      if (!userCode) throw new RoostError('VALIDATION_ERROR', 'body.user_code is required');
      if (action !== 'approve' && action !== 'deny') throw new RoostError('VALIDATION_ERROR', 'body.action must be approve or deny');
      if (asked !== undefined && !ROLES.includes(asked as Role)) throw new RoostError('VALIDATION_ERROR', `body.role must be one of ${ROLES.join(', ')}`);
      const role = (asked as Role | undefined) ?? auth.role;
      // The kernel refuses a grant above the approver's role too; asked here first, before the code is looked up.
      if (RANK[role] > RANK[auth.role]) throw new RoostError('FORBIDDEN', `a ${auth.role} cannot hand out the ${role} role`);
      if (action === 'deny') {
        const { clientId } = await devicesOf(ctx).decide(userCode, auth.actor, { approve: false, actor: auth.actor });
        return { status: 200, body: { status: 'denied', clientId } };
      }
      const { clientId, tenantId } = await devicesOf(ctx).decide(userCode, auth.actor, { approve: true, requestId: req.id, role, actor: auth.actor });
      ctx.host.audit('grant.device_approved', `device:${clientId}`.slice(0, 200), { role, approvedBy: auth.actor });
      return { status: 200, body: { status: 'approved', clientId, tenantId, role } };
    },
  },
});
