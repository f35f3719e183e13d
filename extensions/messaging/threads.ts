// Threads: a conversation is the same recipient session for every message in it.
import type { Knex } from 'knex';

export interface Thread {
  id: string;
  from: string | null;
  to: string;
  sessionId: string;
  depth: number;
}

interface Row {
  tenant_id: string;
  id: string;
  from_agent_id: string | null;
  to_agent_id: string;
  session_id: string;
  depth: number;
  created_at: string;
}

export class ThreadStore {
  constructor(private readonly db: Knex) {}

  async get(tenantId: string, id: string): Promise<Thread | undefined> {
    const row = await this.db('message_threads').where({ tenant_id: tenantId, id }).first<Row | undefined>();
    return row && { id: row.id, from: row.from_agent_id, to: row.to_agent_id, sessionId: row.session_id, depth: Number(row.depth) };
  }

  async create(tenantId: string, thread: Thread): Promise<void> {
    await this.db('message_threads').insert({
      tenant_id: tenantId,
      id: thread.id,
      from_agent_id: thread.from,
      to_agent_id: thread.to,
      session_id: thread.sessionId,
      depth: thread.depth,
      created_at: new Date().toISOString(),
    });
  }

  /** How many agent→agent hops led to a session: 0 for one this extension did not start. */
  async depthOf(tenantId: string, sessionId: string): Promise<number> {
    const row = await this.db('message_threads').where({ tenant_id: tenantId, session_id: sessionId }).max<{ depth: number | null }>('depth as depth').first();
    return Number(row?.depth ?? 0);
  }
}
