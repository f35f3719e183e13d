// Dynamic client registration (RFC 7591) of public clients: an MCP client (Claude Code, MCP Inspector,
// mcp-remote) registers its redirect URIs and a name, and gets a client_id and no secret (it could keep
// none: token_endpoint_auth_method "none", PKCE proving each exchange). The body is checked with the
// MCP SDK's own schema of client metadata.
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { InvalidClientMetadataError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { OAuthClientMetadataSchema, type OAuthClientInformationFull } from '@modelcontextprotocol/sdk/shared/auth.js';
import { InvalidRedirectUriError, registrableRedirect } from './oauth.js';

/** Enough for any real client, few enough that the consent page can show them all. */
const MAX_REDIRECT_URIS = 10;
const MAX_METADATA_BYTES = 16_384;

export class Clients {
  constructor(private readonly db: Knex) {}

  async register(body: unknown): Promise<OAuthClientInformationFull> {
    if (JSON.stringify(body ?? null).length > MAX_METADATA_BYTES) throw new InvalidClientMetadataError(`client metadata is limited to ${MAX_METADATA_BYTES} bytes`);
    const parsed = OAuthClientMetadataSchema.safeParse(body);
    if (!parsed.success) throw new InvalidClientMetadataError(parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; '));
    const metadata = parsed.data;
    if (metadata.redirect_uris.length === 0 || metadata.redirect_uris.length > MAX_REDIRECT_URIS) throw new InvalidRedirectUriError(`register 1 to ${MAX_REDIRECT_URIS} redirect_uris`);
    for (const uri of metadata.redirect_uris) {
      const problem = registrableRedirect(uri);
      if (problem) throw new InvalidRedirectUriError(problem);
    }
    const grants = metadata.grant_types ?? ['authorization_code', 'refresh_token'];
    if (grants.some((g) => g !== 'authorization_code' && g !== 'refresh_token')) throw new InvalidClientMetadataError('grant_types may name authorization_code and refresh_token only');
    if ((metadata.response_types ?? ['code']).some((t) => t !== 'code')) throw new InvalidClientMetadataError('response_types may name code only');
    // Every client is public: a client asking for a secret method gets "none" back (RFC 7591 §3.2.1 lets the server replace values).
    const client: OAuthClientInformationFull = {
      ...metadata,
      client_name: (metadata.client_name ?? 'an MCP client').slice(0, 200),
      grant_types: grants,
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      client_id: randomUUID(),
      client_id_issued_at: Math.floor(Date.now() / 1000),
    };
    await this.db('oauth_clients').insert({ client_id: client.client_id, metadata: JSON.stringify(client), created_at: new Date().toISOString() });
    return client;
  }

  async get(clientId: string): Promise<OAuthClientInformationFull | undefined> {
    const row: { metadata: string } | undefined = await this.db('oauth_clients').where({ client_id: clientId.slice(0, 100) }).first();
    return row ? (JSON.parse(row.metadata) as OAuthClientInformationFull) : undefined;
  }
}
