// Bearer tokens for /mcp scoped to one agent (and session). Extensions with the `tokens` capability
// mint them for the agents they run; each carries the privileged tools the agent was granted.
import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { hashKey } from '../auth/keys.js';
import type { Identity } from '../auth/identity.js';
import type { TokenRequest } from '../host/services.js';

const DEFAULT_TTL_SECONDS = 4 * 3600;
const TOKEN_PREFIX = 'rmt_';

export class McpTokens {
  constructor(private readonly db: Knex) {}

  static looksLikeToken(value: string): boolean {
    return value.startsWith(TOKEN_PREFIX);
  }

  async mint(request: TokenRequest, issuedBy: string): Promise<string> {
    const token = `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
    await this.db('mcp_tokens').insert({
      token_hash: hashKey(token),
      tenant_id: request.tenantId,
      agent_id: request.agentId,
      session_id: request.sessionId,
      tools: JSON.stringify(request.tools),
      issued_by: issuedBy,
      expires_at: new Date(Date.now() + (request.ttlSeconds ?? DEFAULT_TTL_SECONDS) * 1000).toISOString(),
    });
    return token;
  }

  /** The agent identity a token stands for, or undefined when unknown or expired. */
  async resolve(token: string): Promise<Identity | undefined> {
    const row = await this.db('mcp_tokens').where({ token_hash: hashKey(token) }).first();
    if (!row || Date.parse(row.expires_at) <= Date.now()) return undefined;
    return {
      tenantId: row.tenant_id,
      role: 'operator',
      actor: `agent:${row.agent_id}`,
      keyHash: null,
      local: false,
      agent: { agentId: row.agent_id, sessionId: row.session_id, tools: JSON.parse(row.tools) as string[] },
    };
  }

  async pruneExpired(): Promise<void> {
    await this.db('mcp_tokens').where('expires_at', '<=', new Date().toISOString()).delete();
  }
}
