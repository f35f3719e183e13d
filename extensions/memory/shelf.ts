// A shelf of sealed, named texts: an agent's memories (owner: the agent) and a tenant's shared library
// (owner: "library"). Names and contents are sealed; a name is found by its keyed hash and a text by
// the blind index of its words (and tags). Every read and write is within one tenant and owner.
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { ExtensionContext } from '../../sdk/extension.js';
import type { SqlValue } from '../../sdk/sql.js';
import { searchStatement } from './full-text.js';
import type { MemorySealer } from './sealing.js';
import { indexText, queryTokens, tagToken } from './words.js';

export interface ShelfRecord {
  id: string;
  name: string;
  content: string;
  extra: Record<string, unknown>;
  txid: string | null;
  accessCount: number;
  lastAccessedAt: string | null;
  createdAt: string;
  updatedAt: string;
  /** How well it matched a search (higher is better); absent outside searches. */
  rank?: number;
}

interface Row {
  id: string;
  name_enc: string;
  content_enc: string;
  extra_enc: string | null;
  txid?: string | null;
  access_count: number;
  last_accessed_at: string | null;
  created_at: string;
  updated_at: string;
  rank?: number;
}

export interface Owner {
  tenantId: string;
  ownerId: string;
}

export interface Find {
  query?: string;
  tag?: string;
  /** Without a query: `recent` (last written first) or `used` (most recalled, then last used). */
  order?: 'recent' | 'used';
  limit: number;
  offset: number;
}

export const LIBRARY_OWNER = 'library';
const BASE_COLUMNS = ['id', 'name_enc', 'content_enc', 'extra_enc', 'access_count', 'last_accessed_at', 'created_at', 'updated_at'];

export class Shelf {
  private readonly columnNames: string[];
  /** The same, as SQL on the alias `d`. */
  private readonly columns: string;

  constructor(
    private readonly ctx: ExtensionContext,
    private readonly sealer: MemorySealer,
    private readonly table: 'memories' | 'library_entries',
  ) {
    this.columnNames = table === 'memories' ? [...BASE_COLUMNS, 'txid'] : BASE_COLUMNS;
    this.columns = this.columnNames.map((c) => `d.${c}`).join(', ');
  }

  /**
   * Writes `name` (a new record, or a new content for the existing one); `created` tells which. `db` may
   * be a transaction the write belongs to (a graduation writes its memory with the observation's change).
   */
  async put(owner: Owner, name: string, content: string, extra: Record<string, unknown> = {}, tags: string[] = [], db: Knex = this.ctx.db): Promise<{ record: ShelfRecord; created: boolean }> {
    const scope = this.scope(owner);
    const nameHash = this.sealer.lookupHash(name, scope);
    const now = new Date().toISOString();
    for (let attempt = 0; ; attempt++) {
      const existing = await db(this.table).where({ tenant_id: owner.tenantId, owner_id: owner.ownerId, name_hash: nameHash }).first('id');
      const id = (existing?.id as string | undefined) ?? randomUUID();
      const sealed = {
        content_enc: this.sealer.seal(content, `${scope}\0${id}\0content`),
        extra_enc: this.sealer.seal(JSON.stringify(extra), `${scope}\0${id}\0extra`),
        words: indexText(this.sealer, scope, `${name} ${content}`, tags),
        updated_at: now,
      };
      if (existing) {
        // A memory sent on-chain and then changed is no longer what the chain holds: it is unsent again.
        await db(this.table).where({ id }).update(this.table === 'memories' ? { ...sealed, txid: null } : sealed);
        return { record: (await this.byId(owner, id, db))!, created: false };
      }
      const row = {
        id, tenant_id: owner.tenantId, owner_id: owner.ownerId, name_hash: nameHash,
        name_enc: this.sealer.seal(name, `${scope}\0${id}\0name`), access_count: 0, created_at: now, ...sealed,
      };
      try {
        // Within a transaction the insert gets a savepoint: a lost race must not abort the whole transaction.
        await (db.isTransaction ? db.transaction((savepoint) => savepoint(this.table).insert(row)) : db(this.table).insert(row));
        return { record: (await this.byId(owner, id, db))!, created: true };
      } catch (err) {
        if (attempt > 0) throw err; // a concurrent write of the same name won the insert: update it instead
      }
    }
  }

  /** The record named `name`; `touch` counts it as recalled. */
  async get(owner: Owner, name: string, touch: boolean): Promise<ShelfRecord | undefined> {
    const row = await this.ctx.sql.get<Row>(
      `SELECT ${this.columns} FROM ${this.table} d WHERE d.tenant_id = ? AND d.owner_id = ? AND d.name_hash = ?`,
      [owner.tenantId, owner.ownerId, this.sealer.lookupHash(name, this.scope(owner))],
    );
    if (!row) return undefined;
    if (touch) await this.touch([row.id]);
    return this.toRecord(owner, row);
  }

  async remove(owner: Owner, name: string): Promise<boolean> {
    const nameHash = this.sealer.lookupHash(name, this.scope(owner));
    return (await this.ctx.db(this.table).where({ tenant_id: owner.tenantId, owner_id: owner.ownerId, name_hash: nameHash }).delete()) > 0;
  }

  /** A page of records: matching `query` (best first) and `tag`, or all by `order`. */
  async find(owner: Owner, find: Find): Promise<{ records: ShelfRecord[]; hasMore: boolean }> {
    const scope = this.scope(owner);
    const any = find.query ? queryTokens(this.sealer, scope, find.query) : [];
    if (find.query && any.length === 0) return { records: [], hasMore: false }; // only stop words or punctuation
    const all = find.tag ? [tagToken(this.sealer, scope, find.tag)] : [];
    let rows: Row[];
    const params: SqlValue[] = [owner.tenantId, owner.ownerId, find.limit + 1, find.offset];
    if (any.length > 0 || all.length > 0) {
      const statement = searchStatement(this.ctx.sql.dialect, this.table, this.columns, 'd.tenant_id = ? AND d.owner_id = ?', { all, any });
      rows = await this.ctx.sql.all<Row>(statement.text, [statement.match, ...params]);
    } else {
      const order = find.order === 'used' ? 'd.access_count DESC, COALESCE(d.last_accessed_at, d.updated_at) DESC' : 'd.updated_at DESC';
      rows = await this.ctx.sql.all<Row>(`SELECT ${this.columns} FROM ${this.table} d WHERE d.tenant_id = ? AND d.owner_id = ? ORDER BY ${order}, d.id LIMIT ? OFFSET ?`, params);
    }
    const hasMore = rows.length > find.limit;
    return { records: rows.slice(0, find.limit).map((row) => this.toRecord(owner, row)), hasMore };
  }

  /** Records the on-chain transaction of the record named `name` (memories only); false when there is none. */
  async setTxid(owner: Owner, name: string, txid: string): Promise<boolean> {
    const nameHash = this.sealer.lookupHash(name, this.scope(owner));
    return (await this.ctx.db(this.table).where({ tenant_id: owner.tenantId, owner_id: owner.ownerId, name_hash: nameHash }).update({ txid })) > 0;
  }

  /** A tenant's records not sent on-chain yet (memories only), oldest first, with their owners. */
  async unsent(tenantId: string, limit: number): Promise<Array<{ ownerId: string; record: ShelfRecord }>> {
    const rows = await this.ctx.sql.all<Row & { owner_id: string }>(
      `SELECT ${this.columns}, d.owner_id FROM ${this.table} d WHERE d.tenant_id = ? AND d.txid IS NULL ORDER BY d.created_at, d.id LIMIT ?`,
      [tenantId, limit],
    );
    return rows.map((row) => ({ ownerId: row.owner_id, record: this.toRecord({ tenantId, ownerId: row.owner_id }, row) }));
  }

  /** Counts records as recalled: recall order and a session's memory context prefer what is used. */
  async touch(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.ctx.db(this.table).whereIn('id', ids).update({
      access_count: this.ctx.db.raw('access_count + 1'),
      last_accessed_at: new Date().toISOString(),
    });
  }

  private async byId(owner: Owner, id: string, db: Knex): Promise<ShelfRecord | undefined> {
    const row = await db(this.table).where({ id }).first(...this.columnNames);
    return row && this.toRecord(owner, row as Row);
  }

  /** What sealed values of this owner are bound to: a record copied to another owner does not open. */
  private scope(owner: Owner): string {
    return `${this.table}\0${owner.tenantId}\0${owner.ownerId}`;
  }

  private toRecord(owner: Owner, row: Row): ShelfRecord {
    const scope = this.scope(owner);
    return {
      id: row.id,
      name: this.sealer.open(row.name_enc, `${scope}\0${row.id}\0name`),
      content: this.sealer.open(row.content_enc, `${scope}\0${row.id}\0content`),
      extra: row.extra_enc ? (JSON.parse(this.sealer.open(row.extra_enc, `${scope}\0${row.id}\0extra`)) as Record<string, unknown>) : {},
      txid: row.txid ?? null,
      accessCount: Number(row.access_count),
      lastAccessedAt: row.last_accessed_at,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
      ...(row.rank === undefined ? {} : { rank: Number(row.rank) }),
    };
  }
}
