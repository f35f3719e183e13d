// Uses of a listing. A use of a paid listing holds its price in escrow (state held) until the using
// tenant settles it: success releases the credits to the seller agent, failure refunds them; one nobody
// settles is released when the settle window passes (settler.ts). A free use only records its outcome.
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { conflict, notFound } from '../../protocol/errors.js';

export type UseState = 'held' | 'released' | 'refunded' | 'free';
export type Outcome = 'success' | 'failure';

export interface Use {
  id: string;
  listingId: string;
  agentId: string | null;
  escrowId: string | null;
  microUnits: number;
  state: UseState;
  outcome: Outcome | null;
  reason: string;
  createdAt: string;
  settledAt: string | null;
}

export type UseRow = Record<string, any>;

export class UseStore {
  constructor(private readonly db: Knex) {}

  async create(input: { listingId: string; listingTenantId: string; tenantId: string; agentId: string | null; escrowId: string | null; microUnits: number }): Promise<UseRow> {
    const row: UseRow = {
      id: randomUUID(), listing_id: input.listingId, listing_tenant_id: input.listingTenantId, tenant_id: input.tenantId, agent_id: input.agentId,
      escrow_id: input.escrowId, micro_units: input.microUnits, state: input.escrowId ? 'held' : 'free', outcome: null, reason: '',
      created_at: new Date().toISOString(), settled_at: null,
    };
    await this.db.transaction(async (trx) => {
      await trx('uses').insert(row);
      await trx('listings').where({ id: input.listingId }).increment('use_count', 1);
    });
    return row;
  }

  async get(tenantId: string, id: string): Promise<UseRow> {
    const row = await this.db('uses').where({ tenant_id: tenantId, id }).first();
    if (!row) throw notFound(`use ${id}`);
    return row;
  }

  /**
   * Claims the right to settle: only one caller moves an unsettled use to its outcome (the escrow
   * call follows; a second settle gets 409).
   */
  async claim(tenantId: string, id: string, outcome: Outcome, reason: string): Promise<{ row: UseRow; previous: UseState }> {
    const row = await this.get(tenantId, id);
    if (row.outcome) throw conflict(`use ${id} is already settled (${row.outcome})`);
    const state: UseState = row.state === 'held' ? (outcome === 'success' ? 'released' : 'refunded') : row.state;
    const patch = { outcome, reason, state, settled_at: new Date().toISOString() };
    const n = await this.db('uses').where({ id, outcome: null }).update(patch);
    if (n === 0) throw conflict(`use ${id} is already settled`);
    return { row: { ...row, ...patch }, previous: row.state };
  }

  /** Puts a claimed use back when its escrow could not be settled, so it can be settled again. */
  async unclaim(id: string, previous: UseState): Promise<void> {
    await this.db('uses').where({ id }).update({ outcome: null, reason: '', state: previous, settled_at: null });
  }
}

export function toUse(row: UseRow): Use {
  return {
    id: row.id, listingId: row.listing_id, agentId: row.agent_id ?? null, escrowId: row.escrow_id ?? null, microUnits: Number(row.micro_units),
    state: row.state, outcome: row.outcome ?? null, reason: row.reason, createdAt: row.created_at, settledAt: row.settled_at ?? null,
  };
}
