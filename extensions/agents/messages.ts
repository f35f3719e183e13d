// Agent-to-agent messages: the one store of them. The messaging extension delivers messages and
// records each (and each reply) here through POST /api/internal/agent-messages. `txid` stays null: it
// is filled only when a message is also sent on-chain (the chainchat layer), which nothing does yet.
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { paged, type PageRequest } from '../../sdk/db.js';
import type { SqlReader } from '../../sdk/sql.js';
import type { AgentMessage, NewAgentMessage as NewMessage } from './contract.js';


interface Row {
  id: string;
  tenant_id: string;
  from_agent_id: string | null;
  to_agent_id: string;
  content: string;
  session_id: string | null;
  thread_id: string | null;
  txid: string | null;
  created_at: string;
}


export class MessageStore {
  constructor(
    private readonly db: Knex,
    private readonly sql: SqlReader,
  ) {}

  async record(tenantId: string, message: NewMessage): Promise<AgentMessage> {
    const row: Row = {
      id: randomUUID(),
      tenant_id: tenantId,
      from_agent_id: message.from,
      to_agent_id: message.to,
      content: message.content,
      session_id: message.sessionId,
      thread_id: message.thread,
      txid: null,
      created_at: new Date().toISOString(),
    };
    await this.db('agent_messages').insert(row);
    return toMessage(row);
  }

  /** Messages an agent sent or received, newest first. */
  async history(tenantId: string, agentId: string, page: PageRequest): Promise<{ messages: AgentMessage[]; total?: number; hasMore: boolean }> {
    const from = 'agent_messages WHERE tenant_id = ? AND (to_agent_id = ? OR from_agent_id = ?)';
    const { rows, total, hasMore } = await paged<Row>(this.sql, { from, params: [tenantId, agentId, agentId], orderBy: 'created_at DESC, id DESC' }, page);
    return { messages: rows.map(toMessage), ...(total === undefined ? {} : { total }), hasMore };
  }
}

function toMessage(row: Row): AgentMessage {
  return { id: row.id, from: row.from_agent_id, to: row.to_agent_id, content: row.content, sessionId: row.session_id, thread: row.thread_id, txid: row.txid, createdAt: row.created_at };
}
