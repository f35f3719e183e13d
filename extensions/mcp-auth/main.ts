// The mcp-auth extension: an OAuth 2.1 authorization server for the kernel's /mcp, as the MCP spec
// (2025-06-18, "Authorization") describes it, so a remote MCP client signs in with a browser instead of
// a pasted key. It serves /mcp's protected-resource metadata (RFC 9728; the kernel points its 401 at
// it), its own metadata (RFC 8414), dynamic client registration (RFC 7591), the authorization endpoint
// (code + PKCE S256, resource indicators RFC 8707) whose consent is the dashboard's "Allow an MCP
// client" page, the token endpoint (code and rotated refresh tokens) and revocation (RFC 7009). Access
// tokens are keys the kernel mints from the consenting person's grant (`keys` capability), bound to
// /mcp, their tenant and a role at most theirs; the kernel alone validates them.
import { OAuthError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { RoostError } from '../../protocol/errors.js';
import type { AuthContext, RouteReply } from '../../protocol/messages.js';
import { runExtension, type ExtensionContext, type RouteRequest } from '../../sdk/extension.js';
import { integerSetting } from '../../sdk/settings.js';
import { Clients } from './clients.js';
import { migrations } from './migrations.js';
import { authorizationServerMetadata, BadQuery, CONSENT_PAGE, formOf, json, MCP_PATH, NO_STORE, oauthError, originOf, protectedResourceMetadata, queryParam } from './oauth.js';
import { Requests, UntrustedRedirect } from './requests.js';
import { Tokens } from './tokens.js';

type Role = AuthContext['role'];
const ROLES: Role[] = ['viewer', 'operator', 'owner'];

interface State {
  clients: Clients;
  requests: Requests;
  tokens: Tokens;
}

function setup(ctx: ExtensionContext): State {
  const accessTtlSeconds = integerSetting(ctx, 'ACCESS_TOKEN_TTL_SECONDS', 3_600, 60, 86_400);
  const grantTtlSeconds = integerSetting(ctx, 'REFRESH_TOKEN_TTL_SECONDS', 30 * 86_400, 3_600, 30 * 86_400);
  const clients = new Clients(ctx.db);
  return {
    clients,
    requests: new Requests(ctx.db, ctx.host, clients, { grantTtlSeconds }),
    tokens: new Tokens(ctx.db, ctx.host, clients, { accessTtlSeconds, grantTtlSeconds }),
  };
}

const origin = (req: RouteRequest, ctx: ExtensionContext) => originOf(req, ctx.init.config?.publicUrl);

/** An OAuth endpoint's failure as RFC 6749 §5.2 has it; anything else is the extension's usual error. */
async function oauth(work: () => Promise<RouteReply>): Promise<RouteReply> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof OAuthError) return oauthError(err);
    throw err;
  }
}

function field(body: unknown, name: string): string | undefined {
  const value = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined;
  return typeof value === 'string' && value.length > 0 && value.length <= 200 ? value : undefined;
}

runExtension<State>({
  migrations,
  setup,
  routes: {
    'GET /.well-known/oauth-protected-resource': (req, ctx) => json(protectedResourceMetadata(origin(req, ctx))),
    'GET /.well-known/oauth-protected-resource/mcp': (req, ctx) => json(protectedResourceMetadata(origin(req, ctx))),
    'GET /.well-known/oauth-authorization-server': (req, ctx) => json(authorizationServerMetadata(origin(req, ctx))),

    'POST /oauth/register': (req, _ctx, state) => oauth(async () => {
      let body: unknown;
      try {
        body = JSON.parse(typeof req.body === 'string' && req.body !== '' ? req.body : 'null');
      } catch {
        body = undefined;
      }
      return { status: 201, headers: NO_STORE, body: await state.clients.register(body) };
    }),

    async 'GET /oauth/authorize'(req, ctx, state): Promise<RouteReply> {
      const base = origin(req, ctx);
      try {
        const outcome = await state.requests.start({
          clientId: queryParam(req, 'client_id'), redirectUri: queryParam(req, 'redirect_uri'), responseType: queryParam(req, 'response_type'),
          codeChallenge: queryParam(req, 'code_challenge'), codeChallengeMethod: queryParam(req, 'code_challenge_method'),
          state: queryParam(req, 'state'), scope: queryParam(req, 'scope'), resource: queryParam(req, 'resource'),
        }, `${base}${MCP_PATH}`, base);
        const location = 'redirect' in outcome ? outcome.redirect : `${base}${CONSENT_PAGE}/${outcome.requestId}`;
        // A body (a string is sent as text), since a reply without one would be sent as 204.
        return { status: 302, headers: { location, 'cache-control': 'no-store' }, body: `Redirecting to ${location}\n` };
      } catch (err) {
        // Not sent back to a redirect URI that is not known good (RFC 6749 §4.1.2.1): told to the person instead.
        if (err instanceof UntrustedRedirect || err instanceof BadQuery) {
          const message = err.message;
          return { status: 400, headers: { 'cache-control': 'no-store', 'content-type': 'text/plain; charset=utf-8' }, body: `This sign-in cannot go on: ${message}\n` };
        }
        throw err;
      }
    },

    'POST /oauth/token': (req, _ctx, state) => oauth(async () => ({ status: 200, headers: NO_STORE, body: await state.tokens.exchange(formOf(req)) })),

    'POST /oauth/revoke': (req, _ctx, state) => oauth(async () => {
      await state.tokens.revoke(formOf(req));
      return { status: 200, headers: NO_STORE, body: {} };
    }),

    async 'GET /api/oauth/requests/:id'(req, _ctx, state) {
      return { status: 200, headers: { 'cache-control': 'no-store' }, body: await state.requests.describe(req.params.id!) };
    },

    async 'POST /api/oauth/requests/:id'(req, ctx, state) {
      const { auth } = req;
      const action = field(req.body, 'action');
      const asked = field(req.body, 'role');
      if (action !== 'allow' && action !== 'deny') throw new RoostError('VALIDATION_ERROR', 'body.action must be allow or deny');
      if (asked !== undefined && !ROLES.includes(asked as Role)) throw new RoostError('VALIDATION_ERROR', `body.role must be one of ${ROLES.join(', ')}`);
      const role = (asked as Role | undefined) ?? auth.role;
      const decision = action === 'allow' ? { approve: true as const, requestId: req.id, role } : { approve: false as const };
      const outcome = await state.requests.decide(req.params.id!, auth, decision);
      if (action === 'allow') ctx.host.audit('grant.mcp_client_allowed', `oauth:${req.params.id}`.slice(0, 200), { role, allowedBy: auth.actor });
      return { status: 200, body: { status: action === 'allow' ? 'allowed' : 'denied', ...outcome } };
    },
  },
});
