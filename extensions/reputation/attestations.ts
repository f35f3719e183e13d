// Attestations: a statement of an agent's score and verification tier, signed with this server's
// attestation key (Ed25519, derived from the extension's sealing key, published at KEY_PATH), so anyone
// can check it with the public key; and the check of an attestation from any server, by its key.
import { randomUUID } from 'node:crypto';
import { RoostError, validationError } from '../../protocol/errors.js';
import type { ExtensionContext } from '../../sdk/extension.js';
import { parseHttpUrl, request } from '../../sdk/outbound.js';
import { portOf, reachFor, reachPolicy } from '../../sdk/reach.js';
import { stringSetting } from '../../sdk/settings.js';
import { openEnvelope, publicKeyFrom, SigningKey, type SignedEnvelope } from '../../sdk/signing.js';
import { IdentityStore } from './identities.js';
import { computeScore } from './scores.js';

export const KEY_PATH = '/.well-known/roost-attestation-key';
export const STATEMENT_TYPE = 'roost.reputation.attestation';

export interface Statement {
  type: typeof STATEMENT_TYPE;
  id: string;
  issuer: string | null;
  agentId: string;
  agentName: string;
  score: number;
  eventCount: number;
  tier: string;
  issuedAt: string;
  expiresAt: string;
}

export const signingKey = (ctx: ExtensionContext): Promise<SigningKey> => SigningKey.forExtension(ctx.host, 'reputation attestation');

export async function attest(ctx: ExtensionContext, tenantId: string, agent: { id: string; name: string }, ttlHours: number): Promise<{ attestation: SignedEnvelope; statement: Statement }> {
  const score = await computeScore(ctx, tenantId, agent.id);
  const identity = await new IdentityStore(ctx.db).get(tenantId, agent.id);
  const now = new Date();
  const statement: Statement = {
    type: STATEMENT_TYPE, id: randomUUID(), issuer: stringSetting(ctx, 'ISSUER_URL') ?? null, agentId: agent.id, agentName: agent.name, score: score.score,
    eventCount: score.eventCount, tier: identity.tier, issuedAt: now.toISOString(), expiresAt: new Date(now.getTime() + ttlHours * 3_600_000).toISOString(),
  };
  const attestation = (await signingKey(ctx)).sign(statement);
  await ctx.db('attestations').insert({ id: statement.id, tenant_id: tenantId, agent_id: agent.id, envelope: JSON.stringify(attestation), issued_at: statement.issuedAt, expires_at: statement.expiresAt });
  return { attestation, statement };
}

export async function latest(ctx: ExtensionContext, tenantId: string, agentId: string): Promise<{ attestation: SignedEnvelope; statement: Statement } | undefined> {
  const row = await ctx.sql.get<{ envelope: string }>('SELECT envelope FROM attestations WHERE tenant_id = ? AND agent_id = ? ORDER BY issued_at DESC, id LIMIT 1', [tenantId, agentId]);
  if (!row) return undefined;
  const attestation = JSON.parse(row.envelope) as SignedEnvelope;
  return { attestation, statement: JSON.parse(attestation.payload) as Statement };
}

export type Verdict = { valid: true; issuer: string; keyId: string; statement: Statement } | { valid: false; issuer: string | null; reason: string };

/** An issuer's published key, by the issuer's address (its origin and path, without a trailing slash). */
export type KeySource = (issuer: string) => Promise<ReturnType<typeof publicKeyFrom>>;

/**
 * Where a caller's check finds an issuer's key: this server's own key when the issuer is this server (by
 * its address or ROOST_EXT_REPUTATION_ISSUER_URL); else the issuer's published key, fetched within the
 * caller's reach (sdk/reach.ts), so that an agent cannot make this server probe its own machine.
 */
export function issuerKeys(ctx: ExtensionContext, tenantId: string): KeySource {
  const policy = reachPolicy(ctx);
  const own = [ctx.init.config?.serverUrl, stringSetting(ctx, 'ISSUER_URL')].filter((u): u is string => typeof u === 'string').map(issuerAddress);
  return async (issuer) => {
    if (own.includes(issuer)) return publicKeyFrom((await signingKey(ctx)).published);
    const url = new URL(`${issuer}${KEY_PATH}`);
    const reply = await request({ method: 'GET', url, timeoutMs: 10_000, maxBytes: 16 * 1024, reach: reachFor(policy, tenantId, portOf(url)) });
    const key = reply.status === 200 ? publicKeyFrom(reply.body) : undefined;
    if (!key) throw new RoostError('UPSTREAM_ERROR', `${url} answered ${reply.status} without an Ed25519 key`, { status: 502 });
    return key;
  };
}

const issuerAddress = (raw: string): string => {
  const url = parseHttpUrl(raw, 'issuer_url');
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
};

/** Checks an attestation against its issuer's published key; `issuerUrl` overrides the issuer it names. */
export async function verify(attestation: unknown, issuerUrl: string | undefined, keys: KeySource, now = new Date()): Promise<Verdict> {
  const envelope = typeof attestation === 'string' ? parseJson(attestation) : attestation;
  const claimed = claimedIssuer(envelope);
  const issuer = issuerUrl ?? claimed;
  if (!issuer) throw validationError('issuer_url is required: this attestation names no issuer');
  const origin = issuerAddress(issuer);
  const key = await keys(origin);
  if (!key) throw new RoostError('UPSTREAM_ERROR', `the issuer ${origin} has no Ed25519 key`, { status: 502 });
  const opened = openEnvelope(envelope, key);
  if (!opened.ok) return { valid: false, issuer: origin, reason: opened.reason };
  const statement = opened.statement as Statement;
  if (statement?.type !== STATEMENT_TYPE) return { valid: false, issuer: origin, reason: 'the signed statement is not a reputation attestation' };
  if (Date.parse(statement.expiresAt) < now.getTime()) return { valid: false, issuer: origin, reason: `the attestation expired at ${statement.expiresAt}` };
  return { valid: true, issuer: origin, keyId: key.keyId, statement };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw validationError('attestation is not JSON');
  }
}

/** The issuer the (not yet verified) statement names, if any. */
function claimedIssuer(envelope: unknown): string | undefined {
  const payload = (envelope as { payload?: unknown } | null)?.payload;
  if (typeof payload !== 'string') return undefined;
  try {
    const issuer = (JSON.parse(payload) as { issuer?: unknown }).issuer;
    return typeof issuer === 'string' ? issuer : undefined;
  } catch {
    return undefined;
  }
}
