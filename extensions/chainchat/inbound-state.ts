// What the inbound pipeline remembers: the txids it has seen (a replayed one is ignored), the chunks of
// messages still incomplete, and the approvals and owner questions it sent, by the short id a reply names.
import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';

export interface StoredChunk {
  idx: number;
  total: number;
  note: Buffer;
  txid: string;
}

export interface Prompt {
  shortId: string;
  kind: 'approval' | 'question';
  refId: string;
  address: string;
}

export class InboundState {
  constructor(private readonly db: Knex) {}

  /** true the first time a txid is seen for the tenant, false ever after. */
  async firstSight(tenantId: string, txid: string): Promise<boolean> {
    if (await this.db('cc_seen').where({ tenant_id: tenantId, txid }).first('txid')) return false;
    try {
      await this.db('cc_seen').insert({ tenant_id: tenantId, txid, seen_at: new Date().toISOString() });
      return true;
    } catch {
      return false; // another reader recorded it first
    }
  }

  /** Stores a chunk; answers every chunk of its message once all have come (and forgets them), else undefined. */
  async addChunk(tenantId: string, sender: string, msgId: string, chunk: StoredChunk): Promise<StoredChunk[] | undefined> {
    return this.db.transaction(async (trx) => {
      await trx('cc_chunks')
        .insert({ tenant_id: tenantId, sender, msg_id: msgId, idx: chunk.idx, total: chunk.total, note: chunk.note.toString('base64'), txid: chunk.txid, created_at: new Date().toISOString() })
        .onConflict(['tenant_id', 'sender', 'msg_id', 'idx']).ignore();
      const rows = await trx('cc_chunks').where({ tenant_id: tenantId, sender, msg_id: msgId }).orderBy('idx');
      if (rows.length < chunk.total) return undefined;
      await trx('cc_chunks').where({ tenant_id: tenantId, sender, msg_id: msgId }).delete();
      return rows.map((r: { idx: number; total: number; note: string; txid: string }) => ({ idx: Number(r.idx), total: Number(r.total), note: Buffer.from(r.note, 'base64'), txid: r.txid }));
    });
  }

  /** Drops halves of messages that never completed. */
  async pruneChunks(before: Date): Promise<void> {
    await this.db('cc_chunks').where('created_at', '<', before.toISOString()).delete();
  }

  async addPrompt(tenantId: string, prompt: Omit<Prompt, 'shortId'>): Promise<string> {
    const shortId = randomBytes(3).toString('hex');
    await this.db('cc_prompts').insert({ tenant_id: tenantId, short_id: shortId, kind: prompt.kind, ref_id: prompt.refId, address: prompt.address, created_at: new Date().toISOString() });
    return shortId;
  }

  async prompt(tenantId: string, shortId: string): Promise<Prompt | undefined> {
    const row = await this.db('cc_prompts').where({ tenant_id: tenantId, short_id: shortId.toLowerCase() }).first();
    return row && { shortId: row.short_id, kind: row.kind, refId: row.ref_id, address: row.address };
  }

  async promptFor(tenantId: string, kind: Prompt['kind'], refId: string): Promise<Prompt | undefined> {
    const row = await this.db('cc_prompts').where({ tenant_id: tenantId, kind, ref_id: refId }).first();
    return row && { shortId: row.short_id, kind: row.kind, refId: row.ref_id, address: row.address };
  }
}
