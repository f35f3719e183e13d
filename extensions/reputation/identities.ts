// Agent identities and their verification tier, in order. Anyone with write access may lower a tier;
// only an owner of the tenant raises one (it vouches for the agent).
import { forbidden } from '../../protocol/errors.js';
import type { Knex } from 'knex';

export const TIERS = ['unverified', 'basic', 'verified', 'trusted'] as const;
export type Tier = (typeof TIERS)[number];

export interface Identity {
  agentId: string;
  tier: Tier;
  evidence: string;
  updatedBy: string | null;
  updatedAt: string | null;
}

type Row = Record<string, any>;

export class IdentityStore {
  constructor(private readonly db: Knex) {}

  async list(tenantId: string): Promise<Identity[]> {
    return (await this.db('identities').where({ tenant_id: tenantId }).orderBy('agent_id')).map(toIdentity);
  }

  async get(tenantId: string, agentId: string): Promise<Identity> {
    const row = await this.db('identities').where({ tenant_id: tenantId, agent_id: agentId }).first();
    return row ? toIdentity(row) : { agentId, tier: 'unverified', evidence: '', updatedBy: null, updatedAt: null };
  }

  async set(tenantId: string, agentId: string, input: { tier: Tier; evidence?: string }, by: { role: string; actor: string }): Promise<Identity> {
    const current = await this.get(tenantId, agentId);
    if (TIERS.indexOf(input.tier) > TIERS.indexOf(current.tier) && by.role !== 'owner') {
      throw forbidden(`only an owner raises a verification tier (from ${current.tier} to ${input.tier})`);
    }
    const row = { tenant_id: tenantId, agent_id: agentId, tier: input.tier, evidence: input.evidence ?? current.evidence, updated_by: by.actor, updated_at: new Date().toISOString() };
    await this.db('identities').insert(row).onConflict(['tenant_id', 'agent_id']).merge(['tier', 'evidence', 'updated_by', 'updated_at']);
    return toIdentity(row);
  }
}

function toIdentity(row: Row): Identity {
  return { agentId: row.agent_id, tier: row.tier, evidence: row.evidence, updatedBy: row.updated_by, updatedAt: row.updated_at };
}
