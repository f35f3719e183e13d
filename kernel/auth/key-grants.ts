// The `keys` capability, narrow on purpose: an extension may mint an API key only for a person whose
// request it is serving, in that person's tenant, with at most that person's role. Minting is in two
// steps because the key is made later than the person's consent (RFC 8628: the device collects it when
// it next polls): `grant` binds tenant, role and an expiry to the caller of the request in flight and
// signs them with a kernel secret; `mint` checks that signature and makes the key. An extension can
// neither forge a grant (it never sees the secret) nor widen one, and nothing of the key is stored
// before it is collected. A grant bound to an audience (an OAuth authorization for /mcp, RFC 8707) may
// live up to 30 days and be used again: each use mints a short-lived key accepted at that resource only
// (the access token a refresh token renews), and the extension may revoke the keys it minted.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { RoostError } from '../../protocol/errors.js';
import type { AuthContext } from '../../protocol/messages.js';
import { ROLE_RANK } from './identity.js';
import type { KeyRecord, KeyStore, Role } from './keys.js';

/** The longest a grant may wait for its key (an RFC 8628 device code lives 10 minutes by default). */
export const MAX_GRANT_SECONDS = 3_600;
/** An audience-bound grant stands behind a refresh token: as long as one may live. */
export const MAX_AUDIENCE_GRANT_SECONDS = 30 * 86_400;
/** The longest an audience-bound key (an access token) lives, and how long when not asked. */
const MAX_AUDIENCE_KEY_SECONDS = 86_400;
const DEFAULT_AUDIENCE_KEY_SECONDS = 3_600;

export interface KeyGrant {
  tenantId: string;
  role: Role;
  /** Who consented: the actor of the request the grant was made in. */
  grantedBy: string;
  /** The extension the grant was made for: no other may mint with it. */
  extension: string;
  expiresAt: number;
  /** The one resource its keys are for; absent: a key of every API, minted once. */
  audience?: string;
}

export class KeyGrants {
  constructor(
    private readonly keys: KeyStore,
    private readonly secret: () => Promise<string>,
    /** Refuses a grant past the tenant's member limit (the same check as adding a member). */
    private readonly requireMemberRoom: (tenantId: string) => Promise<void>,
  ) {}

  /** A signed grant for the caller of the request being served, for `role` at most theirs. */
  async grant(extension: string, caller: AuthContext, role: Role, ttlSeconds: number, audience?: string): Promise<{ grant: string; tenantId: string; role: Role; expiresAt: string }> {
    if (!(role in ROLE_RANK)) throw new RoostError('VALIDATION_ERROR', `role must be one of ${Object.keys(ROLE_RANK).join(', ')}`);
    if (caller.role === 'viewer') throw new RoostError('FORBIDDEN', 'a viewer cannot hand out keys');
    if (ROLE_RANK[role] > ROLE_RANK[caller.role]) throw new RoostError('FORBIDDEN', `a ${caller.role} cannot hand out the ${role} role`);
    // A person signing a client in to one resource as themselves adds no member; a key of every API does.
    if (audience === undefined) await this.requireMemberRoom(caller.tenantId);
    const longest = audience === undefined ? MAX_GRANT_SECONDS : MAX_AUDIENCE_GRANT_SECONDS;
    const expiresAt = Date.now() + Math.min(Math.max(1, Math.floor(ttlSeconds)), longest) * 1000;
    const body: KeyGrant = { tenantId: caller.tenantId, role, grantedBy: caller.actor, extension, expiresAt, ...(audience === undefined ? {} : { audience }) };
    const payload = Buffer.from(JSON.stringify(body)).toString('base64url');
    return { grant: `${payload}.${await this.sign(payload)}`, tenantId: body.tenantId, role, expiresAt: new Date(expiresAt).toISOString() };
  }

  /** The key a grant promised, made now; a grant that is not this kernel's, another extension's or expired is refused. */
  async mint(extension: string, grant: string, label: string, ttlSeconds?: number): Promise<{ key: string; record: KeyRecord; grant: KeyGrant }> {
    const [payload, signature] = grant.split('.');
    const expected = payload ? Buffer.from(await this.sign(payload), 'base64url') : Buffer.alloc(0);
    const given = Buffer.from(signature ?? '', 'base64url');
    if (!payload || given.length !== expected.length || !timingSafeEqual(given, expected)) throw new RoostError('FORBIDDEN', 'not a key grant of this server');
    const body = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as KeyGrant;
    if (body.extension !== extension) throw new RoostError('FORBIDDEN', 'this key grant was made for another extension');
    if (Date.now() >= body.expiresAt) throw new RoostError('FORBIDDEN', 'this key grant has expired');
    if (body.audience === undefined) {
      const { key, record } = await this.keys.create(body.tenantId, body.role, label.slice(0, 200), undefined, { extension, audience: null });
      return { key, record, grant: body };
    }
    const lives = Math.min(Math.max(1, Math.floor(ttlSeconds ?? DEFAULT_AUDIENCE_KEY_SECONDS)), MAX_AUDIENCE_KEY_SECONDS) * 1000;
    const expiresAt = new Date(Math.min(Date.now() + lives, body.expiresAt)).toISOString();
    const { key, record } = await this.keys.create(body.tenantId, body.role, label.slice(0, 200), expiresAt, { extension, audience: body.audience });
    return { key, record, grant: body };
  }

  private async sign(payload: string): Promise<string> {
    return createHmac('sha256', await this.secret()).update(payload).digest('base64url');
  }
}
