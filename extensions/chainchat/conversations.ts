// Conversations: one per participant address, with its agent, its keep-alive session, the X25519 key it
// first used, its credits, and its messages (content sealed; the txids that carried them).
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { paged, type PageRequest } from '../../sdk/db.js';
import type { Sealer } from '../../sdk/sealed.js';
import type { SqlReader } from '../../sdk/sql.js';

export interface Participant {
  tenantId: string;
  address: string;
  agentId: string | null;
  sessionId: string | null;
  x25519Public: string | null;
  keyRef: string | null;
  credits: number;
  createdAt: string;
  lastMessageAt: string;
}

export type Direction = 'inbound' | 'outbound' | 'refused';

export interface Message {
  id: string;
  participant: string;
  direction: Direction;
  /** null for a refused message (never opened, or not kept). */
  content: string | null;
  txids: string[];
  createdAt: string;
}

interface ParticipantRow {
  tenant_id: string;
  address: string;
  agent_id: string | null;
  session_id: string | null;
  x25519_public: string | null;
  key_ref: string | null;
  credits: number | string;
  created_at: string;
  last_message_at: string;
}

interface MessageRow {
  id: string;
  tenant_id: string;
  participant: string;
  direction: Direction;
  content_enc: string | null;
  txids: string;
  created_at: string;
}

const toParticipant = (r: ParticipantRow): Participant => ({
  tenantId: r.tenant_id, address: r.address, agentId: r.agent_id, sessionId: r.session_id, x25519Public: r.x25519_public, keyRef: r.key_ref,
  credits: Number(r.credits), createdAt: r.created_at, lastMessageAt: r.last_message_at,
});

export class Conversations {
  constructor(private readonly db: Knex, private readonly sql: SqlReader, private readonly sealer: Sealer) {}

  async participant(tenantId: string, address: string): Promise<Participant | undefined> {
    const row = await this.db<ParticipantRow>('cc_participants').where({ tenant_id: tenantId, address }).first();
    return row && toParticipant(row);
  }

  /** The participant, made with `initialCredits` the first time it is seen. */
  async ensure(tenantId: string, address: string, initialCredits: number): Promise<Participant> {
    const now = new Date().toISOString();
    await this.db('cc_participants').insert({ tenant_id: tenantId, address, credits: initialCredits, created_at: now, last_message_at: now }).onConflict(['tenant_id', 'address']).ignore();
    return (await this.participant(tenantId, address))!;
  }

  async update(tenantId: string, address: string, change: Partial<{ agentId: string | null; sessionId: string | null; x25519Public: string; keyRef: string }>): Promise<void> {
    const row: Record<string, unknown> = { last_message_at: new Date().toISOString() };
    if (change.agentId !== undefined) row.agent_id = change.agentId;
    if (change.sessionId !== undefined) row.session_id = change.sessionId;
    if (change.x25519Public !== undefined) row.x25519_public = change.x25519Public;
    if (change.keyRef !== undefined) row.key_ref = change.keyRef;
    await this.db('cc_participants').where({ tenant_id: tenantId, address }).update(row);
  }

  /** Adds (or with a negative amount, takes) credits; answers the new balance. */
  async addCredits(tenantId: string, address: string, microUnits: number): Promise<number> {
    await this.db('cc_participants').where({ tenant_id: tenantId, address }).update({ credits: this.db.raw('credits + ?', [microUnits]) });
    return (await this.participant(tenantId, address))?.credits ?? 0;
  }

  async list(tenantId: string, page: { limit: number; offset: number }): Promise<{ conversations: Participant[]; hasMore: boolean }> {
    const rows = await this.db<ParticipantRow>('cc_participants').where({ tenant_id: tenantId }).orderBy([{ column: 'last_message_at', order: 'desc' }, { column: 'address' }]).limit(page.limit + 1).offset(page.offset);
    return { conversations: rows.slice(0, page.limit).map(toParticipant), hasMore: rows.length > page.limit };
  }

  async record(tenantId: string, participant: string, direction: Direction, content: string | null, txids: string[]): Promise<Message> {
    const id = randomUUID();
    const createdAt = new Date().toISOString();
    await this.db('cc_messages').insert({
      id, tenant_id: tenantId, participant, direction, txids: JSON.stringify(txids), created_at: createdAt,
      content_enc: content === null ? null : this.sealer.seal(content, `chainchat message\0${tenantId}\0${id}`),
    });
    return { id, participant, direction, content, txids, createdAt };
  }

  async messages(tenantId: string, participant: string, limit: number): Promise<Message[]> {
    const rows = await this.db<MessageRow>('cc_messages').where({ tenant_id: tenantId, participant }).orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id' }]).limit(limit);
    return rows.reverse().map((r) => this.toMessage(tenantId, r));
  }

  /** A participant's messages, newest first, one page (the total as `paged` gives it). */
  async page(tenantId: string, participant: string, page: PageRequest): Promise<{ messages: Message[]; total?: number; hasMore: boolean }> {
    const query = { from: 'cc_messages WHERE tenant_id = ? AND participant = ?', params: [tenantId, participant], orderBy: 'created_at DESC, id' };
    const { rows, total, hasMore } = await paged<MessageRow>(this.sql, query, page);
    return { messages: rows.map((r) => this.toMessage(tenantId, r)), hasMore, ...(total === undefined ? {} : { total }) };
  }

  private toMessage(tenantId: string, r: MessageRow): Message {
    return {
      id: r.id, participant: r.participant, direction: r.direction, txids: JSON.parse(r.txids) as string[], createdAt: r.created_at,
      content: r.content_enc === null ? null : this.sealer.open(r.content_enc, `chainchat message\0${tenantId}\0${r.id}`),
    };
  }
}
