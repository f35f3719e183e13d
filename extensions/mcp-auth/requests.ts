// The authorization request (RFC 6749 §4.1.1 with PKCE, RFC 7636, and a resource, RFC 8707) and the
// consent that answers it. GET /oauth/authorize checks the client and its redirect URI (no redirect
// before they are known good), then the rest (errors now go back to the client's redirect URI), keeps
// the request for ten minutes and sends the browser to the dashboard's consent page. A signed-in person
// there allows it, with a role no higher than their own, or denies it; allowing asks the kernel for an
// audience-bound key grant for that person (`keys` capability) and hands the client a one-time code.
import { createHash, randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { AccessDeniedError, InvalidClientError, InvalidRequestError, InvalidTargetError, OAuthError, UnsupportedResponseTypeError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { RoostError } from '../../protocol/errors.js';
import type { AuthContext } from '../../protocol/messages.js';
import type { HostClient } from '../../sdk/host-client.js';
import type { Clients } from './clients.js';
import { redirectMatches } from './oauth.js';

type Role = AuthContext['role'];
const RANK: Record<Role, number> = { viewer: 0, operator: 1, owner: 2 };
const REQUEST_TTL_MS = 10 * 60_000;
/** RFC 6749 §4.1.2: a code lives briefly; 10 minutes at most. */
const CODE_TTL_MS = 5 * 60_000;

export const hashOf = (secret: string) => createHash('sha256').update(secret).digest('hex');

export interface AuthorizeParams {
  clientId?: string;
  redirectUri?: string;
  responseType?: string;
  codeChallenge?: string;
  codeChallengeMethod?: string;
  state?: string;
  scope?: string;
  resource?: string;
}

/** A request refused before its redirect URI is trusted: shown to the person, never redirected. */
export class UntrustedRedirect extends Error {
  constructor(readonly error: OAuthError) {
    super(error.message);
  }
}

interface RequestRow {
  id: string;
  client_id: string;
  redirect_uri: string;
  state: string | null;
  code_challenge: string;
  resource: string;
  scope: string | null;
  issuer: string;
  expires_at: number | string;
}

export class Requests {
  constructor(
    private readonly db: Knex,
    private readonly host: HostClient,
    private readonly clients: Clients,
    private readonly options: { grantTtlSeconds: number },
  ) {}

  /** Checks an authorization request for `resource` (this server's /mcp); answers the consent page's id, or the redirect of an error. */
  async start(p: AuthorizeParams, resource: string, issuer: string): Promise<{ requestId: string } | { redirect: string }> {
    const client = p.clientId ? await this.clients.get(p.clientId) : undefined;
    if (!client) throw new UntrustedRedirect(new InvalidClientError('client_id is not a registered client: register it first (RFC 7591)'));
    const redirectUri = p.redirectUri ?? (client.redirect_uris.length === 1 ? client.redirect_uris[0] : undefined);
    if (!redirectUri || !redirectMatches(client.redirect_uris, redirectUri)) throw new UntrustedRedirect(new InvalidRequestError('redirect_uri is not one this client registered'));
    const refuse = (error: OAuthError) => ({ redirect: errorRedirect(redirectUri, error, p.state, issuer) });
    if (p.responseType !== 'code') return refuse(new UnsupportedResponseTypeError('response_type must be code'));
    if (!p.codeChallenge || p.codeChallengeMethod !== 'S256') return refuse(new InvalidRequestError('PKCE is required: code_challenge with code_challenge_method S256'));
    if (!/^[A-Za-z0-9_-]{43}$/.test(p.codeChallenge)) return refuse(new InvalidRequestError('code_challenge must be a base64url SHA-256 (43 characters)'));
    if (p.resource !== undefined && p.resource !== resource) return refuse(new InvalidTargetError(`this server issues tokens for ${resource} only`));
    await this.db('oauth_requests').where('expires_at', '<', Date.now()).delete();
    const requestId = randomBytes(18).toString('base64url');
    await this.db('oauth_requests').insert({
      id: requestId, client_id: client.client_id, redirect_uri: redirectUri, state: p.state?.slice(0, 2000) ?? null, code_challenge: p.codeChallenge,
      resource, scope: p.scope?.slice(0, 500) ?? null, issuer, expires_at: Date.now() + REQUEST_TTL_MS,
    });
    return { requestId };
  }

  /** What the consent page shows. */
  async describe(requestId: string): Promise<{ clientId: string; clientName: string; clientUri: string | null; redirectUri: string; resource: string; expiresAt: string }> {
    const row = await this.pending(requestId);
    const client = await this.clients.get(row.client_id);
    return {
      clientId: row.client_id, clientName: client?.client_name ?? row.client_id, clientUri: client?.client_uri ?? null,
      redirectUri: row.redirect_uri, resource: row.resource, expiresAt: new Date(Number(row.expires_at)).toISOString(),
    };
  }

  /** The person's answer: where the browser goes next (the client's redirect URI with a code, or access_denied). */
  async decide(requestId: string, caller: AuthContext, decision: { approve: true; requestId: string; role: Role } | { approve: false }): Promise<{ redirectTo: string; tenantId?: string; role?: Role }> {
    const row = await this.pending(requestId);
    const taken = await this.db('oauth_requests').where({ id: row.id }).delete();
    if (taken === 0) throw new RoostError('CONFLICT', 'this sign-in has just been answered');
    if (!decision.approve) return { redirectTo: errorRedirect(row.redirect_uri, new AccessDeniedError('the person signed in to Roost denied the request'), row.state ?? undefined, row.issuer) };
    if (RANK[decision.role] > RANK[caller.role]) throw new RoostError('FORBIDDEN', `a ${caller.role} cannot hand out the ${decision.role} role`);
    const granted = await this.host.keyGrant(decision.requestId, decision.role, this.options.grantTtlSeconds, row.resource);
    const code = randomBytes(32).toString('base64url');
    await this.db('oauth_codes').where('expires_at', '<', Date.now() - CODE_TTL_MS).delete();
    await this.db('oauth_codes').insert({
      code_hash: hashOf(code), client_id: row.client_id, redirect_uri: row.redirect_uri, code_challenge: row.code_challenge,
      resource: row.resource, grant: granted.grant, status: 'issued', expires_at: Date.now() + CODE_TTL_MS,
    });
    const url = new URL(row.redirect_uri);
    url.searchParams.set('code', code);
    if (row.state !== null) url.searchParams.set('state', row.state);
    url.searchParams.set('iss', row.issuer);
    return { redirectTo: url.href, tenantId: granted.tenantId, role: granted.role };
  }

  private async pending(requestId: string): Promise<RequestRow> {
    const row = await this.db<RequestRow>('oauth_requests').where({ id: requestId.slice(0, 64) }).first();
    if (!row || Date.now() >= Number(row.expires_at)) throw new RoostError('NOT_FOUND', 'no sign-in request waits under this id (they last ten minutes: start again from the client)');
    return row;
  }
}

/** RFC 6749 §4.1.2.1: the error goes back to the client, with its state and this issuer (RFC 9207). */
function errorRedirect(redirectUri: string, error: OAuthError, state: string | undefined, issuer: string): string {
  const url = new URL(redirectUri);
  url.searchParams.set('error', error.errorCode);
  url.searchParams.set('error_description', error.message);
  if (state !== undefined) url.searchParams.set('state', state);
  url.searchParams.set('iss', issuer);
  return url.href;
}
