// Threads: a conversation is the same recipient session for every message in it (until that session
// ends and another takes the conversation on).
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

  /** A thread taken on by another session (the old one ended), or reached deeper in a chain. */
  async move(tenantId: string, id: string, sessionId: string, depth: number): Promise<void> {
    await this.db('message_threads').where({ tenant_id: tenantId, id }).update({ session_id: sessionId, depth });
  }

  /** How many agent→agent hops led to the deepest of these sessions: 0 for ones this extension did not start. */
  async depthOf(tenantId: string, sessionIds: string[]): Promise<number> {
    if (sessionIds.length === 0) return 0;
    const row = await this.db('message_threads').where({ tenant_id: tenantId }).whereIn('session_id', sessionIds).max<{ depth: number | null }>('depth as depth').first();
    return Number(row?.depth ?? 0);
  }
}
