// Agent-to-agent messages: the one store of them. The messaging extension delivers messages and
// records each (and each reply) here through POST /api/internal/agent-messages, then asks chainchat to
// send it on-chain; `txid` is filled when chainchat has (PUT …/txid), and until then `txidReason` says why not.
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { paged, type PageRequest } from '../../sdk/db.js';
import type { SqlReader } from '../../sdk/sql.js';
import type { AgentMessage, AgentMessageTxid, NewAgentMessage as NewMessage } from './contract.js';


interface Row {
  id: string;
  tenant_id: string;
  from_agent_id: string | null;
  to_agent_id: string;
  content: string;
  session_id: string | null;
  thread_id: string | null;
  txid: string | null;
  txid_reason: string | null;
  created_at: string;
}

/** A message recorded before the messaging extension has asked chainchat to send it. */
const NOT_YET_ASKED = 'not sent on-chain yet: chainchat has not been asked';


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
      txid_reason: NOT_YET_ASKED,
      created_at: new Date().toISOString(),
    };
    await this.db('agent_messages').insert(row);
    return toMessage(row);
  }

  /**
   * Records the txid (or, with a null txid, why there is none while none is set; a `first` answer only
   * while nobody was asked yet); undefined for an unknown message.
   */
  async setTxid(tenantId: string, id: string, change: AgentMessageTxid): Promise<AgentMessage | undefined> {
    const query = this.db('agent_messages').where({ tenant_id: tenantId, id });
    if (change.txid === null) query.whereNull('txid');
    if (change.first) query.where({ txid_reason: NOT_YET_ASKED });
    await query.update({ txid: change.txid ?? null, txid_reason: change.txid ? null : change.txidReason });
    const row = await this.db<Row>('agent_messages').where({ tenant_id: tenantId, id }).first();
    return row && toMessage(row);
  }

  /** Messages an agent sent or received, newest first. */
  async history(tenantId: string, agentId: string, page: PageRequest): Promise<{ messages: AgentMessage[]; total?: number; hasMore: boolean }> {
    const from = 'agent_messages WHERE tenant_id = ? AND (to_agent_id = ? OR from_agent_id = ?)';
    const { rows, total, hasMore } = await paged<Row>(this.sql, { from, params: [tenantId, agentId, agentId], orderBy: 'created_at DESC, id DESC' }, page);
    return { messages: rows.map(toMessage), ...(total === undefined ? {} : { total }), hasMore };
  }
}

function toMessage(row: Row): AgentMessage {
  return { id: row.id, from: row.from_agent_id, to: row.to_agent_id, content: row.content, sessionId: row.session_id, thread: row.thread_id, txid: row.txid, txidReason: row.txid ? null : (row.txid_reason ?? 'not sent on-chain (recorded before messages went on-chain)'), createdAt: row.created_at };
}
