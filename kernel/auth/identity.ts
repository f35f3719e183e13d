// Who is calling. A caller is local when it is on loopback and was not forwarded by a proxy the operator
// did not name (http/client-address.ts); local callers without a key are the instance owner unless
// ROOST_LOCAL_AUTH=required. Everyone else needs a bearer key.
import type { IncomingMessage } from 'node:http';
import { RoostError } from '../../protocol/errors.js';
import type { AuthContext } from '../../protocol/messages.js';
import type { ClientAddresses } from '../http/client-address.js';
import { DEFAULT_TENANT, type KeyStore, type Role } from './keys.js';

export interface Identity extends AuthContext {
  role: Role;
  keyHash: string | null;
  local: boolean;
  /** MCP session tokens name the agent and the privileged tools it was granted. */
  agent?: { agentId: string; sessionId: string | null; tools: string[] };
}

export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  return address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.');
}

export function bearerToken(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1] : '';
}

/** The instance owner: owner of the default tenant. Only it manages the server itself (plugins, mode, backups). */
export function isInstanceOwner(identity: Identity): boolean {
  return identity.tenantId === DEFAULT_TENANT && identity.role === 'owner';
}

export class Authenticator {
  constructor(
    private readonly keys: KeyStore,
    private readonly localAuthRequired: boolean,
    readonly clients: ClientAddresses,
  ) {}

  /**
   * Resolves the caller, or throws 401 AUTH_REQUIRED / 403 INVALID_API_KEY. `resource` is the URL of the
   * resource asked for when it has one (/mcp): a key bound to an audience is accepted there only.
   */
  async identify(req: IncomingMessage, resource?: string): Promise<Identity> {
    const token = bearerToken(req);
    if (token === undefined) {
      const owner = this.localOwnerOf(req);
      if (owner) return owner;
      throw new RoostError('AUTH_REQUIRED', 'this request needs an API key: send Authorization: Bearer <key>');
    }
    if (token === '') throw new RoostError('INVALID_API_KEY', 'the Authorization header must be "Bearer <key>"');
    const found = await this.keys.lookup(token);
    if (!found.ok) {
      throw new RoostError('INVALID_API_KEY', found.reason === 'expired' ? 'this API key has expired' : 'this API key is not valid');
    }
    const { record } = found;
    if (record.audience !== null && record.audience !== resource) {
      throw new RoostError('INVALID_API_KEY', `this token was issued for ${record.audience} only${resource ? `, not ${resource}` : ''}`);
    }
    return { tenantId: record.tenantId, role: record.role, actor: `key:${record.keyHash.slice(0, 12)}`, keyHash: record.keyHash, local: this.clients.isLocal(req) };
  }

  /** The machine's owner when it is the caller (no key, on loopback, ROOST_LOCAL_AUTH not required), else undefined. */
  localOwnerOf(req: IncomingMessage): Identity | undefined {
    if (bearerToken(req) !== undefined || this.localAuthRequired || !this.clients.isLocal(req)) return undefined;
    return { tenantId: DEFAULT_TENANT, role: 'owner', actor: 'local', keyHash: null, local: true };
  }
}

export const ROLE_RANK: Record<Role, number> = { viewer: 0, operator: 1, owner: 2 };

export function requireRole(identity: Identity, role: Role): void {
  if (ROLE_RANK[identity.role] < ROLE_RANK[role]) {
    throw new RoostError('FORBIDDEN', `this needs the ${role} role; the caller is ${identity.role}`);
  }
}

export function requireInstanceOwner(identity: Identity): void {
  if (!isInstanceOwner(identity)) throw new RoostError('FORBIDDEN', 'only the instance owner may do this');
}
