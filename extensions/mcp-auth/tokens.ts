// The token endpoint's two grants and revocation. A code (once, within minutes, by the client it was
// issued to, to the same redirect URI, for the same resource) and its PKCE verifier — checked with
// pkce-challenge, the library the MCP SDK's own server uses — buy an access token and a refresh token.
// The access token is a Roost key the kernel mints from the consent's grant (`keys` capability): bound
// to /mcp (the grant's audience), the consenting person's tenant and the role they chose, living an
// hour. A refresh token is rotated on every use (OAuth 2.1 §4.3.1 for public clients): the used one and
// the access token it bought stop working, and a used one presented again revokes the whole family.
import { randomBytes, randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { InvalidClientError, InvalidGrantError, InvalidRequestError, InvalidTargetError, UnsupportedGrantTypeError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { verifyChallenge } from 'pkce-challenge';
import { RoostError } from '../../protocol/errors.js';
import type { HostClient } from '../../sdk/host-client.js';
import type { Clients } from './clients.js';
import { hashOf } from './requests.js';

export interface TokenAnswer {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
}

interface CodeRow {
  code_hash: string;
  client_id: string;
  redirect_uri: string;
  code_challenge: string;
  resource: string;
  grant: string;
  status: string;
  expires_at: number | string;
}

interface RefreshRow {
  token_hash: string;
  family_id: string;
  client_id: string;
  resource: string;
  grant: string;
  access_key_hash: string;
  status: 'active' | 'used' | 'revoked';
  expires_at: number | string;
}

export class Tokens {
  constructor(
    private readonly db: Knex,
    private readonly host: HostClient,
    private readonly clients: Clients,
    private readonly options: { accessTtlSeconds: number; grantTtlSeconds: number },
  ) {}

  async exchange(form: Record<string, string>): Promise<TokenAnswer> {
    const clientId = form.client_id;
    if (!clientId || !(await this.clients.get(clientId))) throw new InvalidClientError('client_id is not a registered client');
    if (form.grant_type === 'authorization_code') return this.redeemCode(clientId, form);
    if (form.grant_type === 'refresh_token') return this.refresh(clientId, form);
    throw new UnsupportedGrantTypeError('grant_type must be authorization_code or refresh_token');
  }

  /** RFC 7009: revokes a refresh token's family or one access token this extension minted; unknown tokens too answer 200. */
  async revoke(form: Record<string, string>): Promise<void> {
    const token = form.token;
    if (!token) throw new InvalidRequestError('token is required');
    const row = await this.db<RefreshRow>('oauth_refresh_tokens').where({ token_hash: hashOf(token) }).first();
    if (row) {
      if (form.client_id && form.client_id !== row.client_id) throw new InvalidClientError('this token was issued to another client');
      return this.revokeFamily(row.family_id);
    }
    // An access token is a key: the kernel revokes it only if this extension minted it.
    await this.host.revokeKey(hashOf(token));
  }

  private async redeemCode(clientId: string, form: Record<string, string>): Promise<TokenAnswer> {
    const { code, code_verifier: verifier, redirect_uri: redirectUri, resource } = form;
    if (!code || !verifier) throw new InvalidRequestError('code and code_verifier are required');
    const row = await this.db<CodeRow>('oauth_codes').where({ code_hash: hashOf(code) }).first();
    if (!row || row.client_id !== clientId) throw new InvalidGrantError('the code is not known (or was issued to another client)');
    // Used once: only the exchange that moves it from issued gets tokens.
    const taken = await this.db('oauth_codes').where({ code_hash: row.code_hash, status: 'issued' }).update({ status: 'used' });
    if (taken === 0) throw new InvalidGrantError('the code has already been used');
    if (Date.now() >= Number(row.expires_at)) throw new InvalidGrantError('the code has expired: sign in again');
    if (redirectUri !== undefined && redirectUri !== row.redirect_uri) throw new InvalidGrantError('redirect_uri differs from the authorization request');
    if (resource !== undefined && resource !== row.resource) throw new InvalidTargetError(`the code was issued for ${row.resource}`);
    if (!(await verifyChallenge(verifier, row.code_challenge))) throw new InvalidGrantError('code_verifier does not match the code_challenge');
    return this.issue({ familyId: randomUUID(), clientId, resource: row.resource, grant: row.grant });
  }

  private async refresh(clientId: string, form: Record<string, string>): Promise<TokenAnswer> {
    const token = form.refresh_token;
    if (!token) throw new InvalidRequestError('refresh_token is required');
    const row = await this.db<RefreshRow>('oauth_refresh_tokens').where({ token_hash: hashOf(token) }).first();
    if (!row || row.client_id !== clientId) throw new InvalidGrantError('the refresh token is not known (or was issued to another client)');
    if (form.resource !== undefined && form.resource !== row.resource) throw new InvalidTargetError(`the refresh token was issued for ${row.resource}`);
    if (row.status === 'used') {
      // A rotated token come back: stolen, or replayed; either way the family ends (RFC 9700 §4.14.2).
      await this.revokeFamily(row.family_id);
      throw new InvalidGrantError('the refresh token has already been used: every token of this sign-in is revoked');
    }
    if (row.status !== 'active') throw new InvalidGrantError('the refresh token has been revoked');
    if (Date.now() >= Number(row.expires_at)) throw new InvalidGrantError('the refresh token has expired: sign in again');
    const taken = await this.db('oauth_refresh_tokens').where({ token_hash: row.token_hash, status: 'active' }).update({ status: 'used' });
    if (taken === 0) throw new InvalidGrantError('the refresh token has just been used');
    await this.host.revokeKey(row.access_key_hash);
    return this.issue({ familyId: row.family_id, clientId, resource: row.resource, grant: row.grant });
  }

  private async issue(p: { familyId: string; clientId: string; resource: string; grant: string }): Promise<TokenAnswer> {
    const client = await this.clients.get(p.clientId);
    let minted;
    try {
      minted = await this.host.mintKey(p.grant, `mcp: ${client?.client_name ?? p.clientId}`.slice(0, 200), this.options.accessTtlSeconds);
    } catch (err) {
      // The kernel refuses the consent's grant (expired after its days, or no longer this server's).
      throw err instanceof RoostError && err.code === 'FORBIDDEN' ? new InvalidGrantError(`${err.message}: sign in again`) : err;
    }
    const refreshToken = randomBytes(32).toString('base64url');
    await this.db('oauth_refresh_tokens').insert({
      token_hash: hashOf(refreshToken), family_id: p.familyId, client_id: p.clientId, resource: p.resource, grant: p.grant,
      access_key_hash: minted.keyHash, status: 'active', expires_at: Date.now() + this.options.grantTtlSeconds * 1000,
    });
    const expiresIn = minted.expiresAt ? Math.max(0, Math.floor((Date.parse(minted.expiresAt) - Date.now()) / 1000)) : this.options.accessTtlSeconds;
    return { access_token: minted.key, token_type: 'Bearer', expires_in: expiresIn, refresh_token: refreshToken, scope: `tenant:${minted.tenantId} role:${minted.role}` };
  }

  private async revokeFamily(familyId: string): Promise<void> {
    const rows = await this.db<RefreshRow>('oauth_refresh_tokens').where({ family_id: familyId });
    await this.db('oauth_refresh_tokens').where({ family_id: familyId }).update({ status: 'revoked' });
    for (const row of rows) await this.host.revokeKey(row.access_key_hash);
  }
}
