// Reputation events: recorded by hand (POST /api/reputation/events) or from outcomes heard on the bus.
// Recording one marks the agent's score stale, so the next read recomputes it.
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { SqlReader } from '../../sdk/sql.js';
import type { ScoredEvent } from './scoring.js';

export interface ReputationEvent extends ScoredEvent {
  id: string;
  agentId: string;
  source: string;
  subject: string | null;
  detail: Record<string, unknown>;
  recordedAt: string;
}

export interface EventInput {
  agentId: string;
  kind: string;
  impact: number;
  source: string;
  subject?: string | null;
  detail?: Record<string, unknown>;
  occurredAt?: string;
}

type Row = Record<string, any>;

export class EventStore {
  constructor(
    private readonly db: Knex,
    private readonly sql: SqlReader,
  ) {}

  /** Records the event; one about a subject already recorded replaces it. */
  async record(tenantId: string, input: EventInput): Promise<ReputationEvent> {
    const now = new Date().toISOString();
    const row: Row = {
      id: randomUUID(), tenant_id: tenantId, agent_id: input.agentId, kind: input.kind, impact: input.impact, source: input.source, subject: input.subject ?? null,
      detail: JSON.stringify(input.detail ?? {}), occurred_at: input.occurredAt ?? now, recorded_at: now,
    };
    await this.db.transaction(async (trx) => {
      if (row.subject) {
        const previous = await trx('reputation_events').where({ tenant_id: tenantId, subject: row.subject }).first('agent_id');
        await trx('reputation_events').where({ tenant_id: tenantId, subject: row.subject }).delete();
        if (previous && previous.agent_id !== row.agent_id) await markStale(trx, tenantId, previous.agent_id);
      }
      await trx('reputation_events').insert(row);
      await markStale(trx, tenantId, row.agent_id);
    });
    return toEvent(row);
  }

  /** Forgets the event about a subject (a deleted review); returns whether there was one. */
  async forget(tenantId: string, subject: string): Promise<boolean> {
    return this.db.transaction(async (trx) => {
      const previous = await trx('reputation_events').where({ tenant_id: tenantId, subject }).first('agent_id');
      if (!previous) return false;
      await trx('reputation_events').where({ tenant_id: tenantId, subject }).delete();
      await markStale(trx, tenantId, previous.agent_id);
      return true;
    });
  }

  async list(tenantId: string, agentId: string, page: { limit: number; offset: number }): Promise<ReputationEvent[]> {
    const rows = await this.sql.all<Row>('SELECT * FROM reputation_events WHERE tenant_id = ? AND agent_id = ? ORDER BY occurred_at DESC, id LIMIT ? OFFSET ?', [tenantId, agentId, page.limit, page.offset]);
    return rows.map(toEvent);
  }

  async all(tenantId: string, agentId: string): Promise<ScoredEvent[]> {
    const rows = await this.sql.all<Row>('SELECT kind, impact, occurred_at FROM reputation_events WHERE tenant_id = ? AND agent_id = ?', [tenantId, agentId]);
    return rows.map((r) => ({ kind: r.kind, impact: Number(r.impact), occurredAt: r.occurred_at }));
  }

  async agents(tenantId: string): Promise<string[]> {
    const rows = await this.sql.all<{ agent_id: string }>('SELECT DISTINCT agent_id FROM reputation_events WHERE tenant_id = ? UNION SELECT agent_id FROM reputation_scores WHERE tenant_id = ?', [tenantId, tenantId]);
    return rows.map((r) => r.agent_id).sort();
  }
}

async function markStale(trx: Knex.Transaction, tenantId: string, agentId: string): Promise<void> {
  await trx('reputation_scores').where({ tenant_id: tenantId, agent_id: agentId }).update({ stale: true });
}

function toEvent(row: Row): ReputationEvent {
  return {
    id: row.id, agentId: row.agent_id, kind: row.kind, impact: Number(row.impact), source: row.source, subject: row.subject ?? null,
    detail: JSON.parse(row.detail) as Record<string, unknown>, occurredAt: row.occurred_at, recordedAt: row.recorded_at,
  };
}
