// The escalation queue: tool uses nobody answered in time, and tool uses held while the server is in
// operational mode `queued`. An owner resolves each entry; an `allow` on an entry whose tool use was
// already denied becomes a one-time grant for the same tool and input in that session.
import { createHash, randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { paged, type PageRequest } from '../../sdk/db.js';
import type { SqlReader } from '../../sdk/sql.js';

import type { EscalationEntry, EscalationReason, EscalationStatus } from './contract.js';

interface Row {
  id: string;
  tenant_id: string;
  session_id: string;
  agent_id: string;
  tool_name: string;
  tool_kind: string;
  input: string;
  input_hash: string;
  reason: EscalationReason;
  status: EscalationStatus;
  resolved_by: string | null;
  grant_used: boolean | number;
  created_at: string;
  resolved_at: string | null;
}

export interface NewEscalation {
  tenantId: string;
  sessionId: string;
  agentId: string;
  toolName: string;
  toolKind: string;
  input: Record<string, unknown>;
  reason: EscalationReason;
}

export const inputHash = (input: unknown): string => createHash('sha256').update(JSON.stringify(input)).digest('hex');

export class EscalationStore {
  constructor(
    private readonly db: Knex,
    private readonly sql: SqlReader,
  ) {}

  async add(entry: NewEscalation): Promise<ReturnType<typeof toEntry>> {
    const row: Row = {
      id: randomUUID(),
      tenant_id: entry.tenantId,
      session_id: entry.sessionId,
      agent_id: entry.agentId,
      tool_name: entry.toolName,
      tool_kind: entry.toolKind,
      input: JSON.stringify(entry.input),
      input_hash: inputHash(entry.input),
      reason: entry.reason,
      status: 'pending',
      resolved_by: null,
      grant_used: false,
      created_at: new Date().toISOString(),
      resolved_at: null,
    };
    await this.db('escalations').insert(row);
    return toEntry(row);
  }

  async get(tenantId: string, id: string) {
    const row = await this.sql.get<Row>('SELECT * FROM escalations WHERE tenant_id = ? AND id = ?', [tenantId, id]);
    return row && toEntry(row);
  }

  async pending(tenantId: string, page: PageRequest & { sessionId?: string }) {
    const from = `escalations WHERE tenant_id = ? AND status = 'pending'${page.sessionId ? ' AND session_id = ?' : ''}`;
    const params = page.sessionId ? [tenantId, page.sessionId] : [tenantId];
    const { rows, total, hasMore } = await paged<Row>(this.sql, { from, params, orderBy: 'created_at, id' }, page);
    return { entries: rows.map(toEntry), ...(total === undefined ? {} : { total }), hasMore };
  }

  /** Entries waiting for an owner, every tenant's: the queue's depth. */
  async pendingCount(): Promise<number> {
    const row = await this.db('escalations').where({ status: 'pending' }).count({ n: '*' }).first();
    return Number(row?.n ?? 0);
  }

  /** Marks a pending entry resolved; false when it was not pending any more (resolved twice). */
  async resolve(tenantId: string, id: string, status: 'allowed' | 'denied', by: string): Promise<boolean> {
    const n = await this.db('escalations').where({ tenant_id: tenantId, id, status: 'pending' }).update({ status, resolved_by: by, resolved_at: new Date().toISOString() });
    return n > 0;
  }

  /** Spends a one-time grant for this exact tool use, if an owner gave one. */
  async takeGrant(sessionId: string, toolName: string, input: unknown): Promise<boolean> {
    const row = await this.db<Row>('escalations')
      .where({ session_id: sessionId, tool_name: toolName, input_hash: inputHash(input), status: 'allowed', grant_used: false })
      .first();
    if (!row) return false;
    const n = await this.db('escalations').where({ id: row.id, grant_used: false }).update({ grant_used: true });
    return n > 0;
  }
}

export function toEntry(row: Row): EscalationEntry {
  return {
    id: row.id,
    sessionId: row.session_id,
    agentId: row.agent_id,
    toolName: row.tool_name,
    toolKind: row.tool_kind,
    input: JSON.parse(row.input) as Record<string, unknown>,
    reason: row.reason,
    status: row.status,
    resolvedBy: row.resolved_by,
    grantUsed: Boolean(row.grant_used),
    createdAt: row.created_at,
    resolvedAt: row.resolved_at,
  };
}

export type Escalation = EscalationEntry;
