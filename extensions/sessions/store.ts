// Session records, read and written within one tenant (restore at start-up reads across tenants).
import type { Knex } from 'knex';
import { paged, type PageRequest } from '../../sdk/db.js';
import type { SqlReader, SqlValue } from '../../sdk/sql.js';
import { SESSION_LIVE as LIVE, SESSION_STATUSES as STATUSES, type SessionRecord, type SessionStatus } from './contract.js';

export { LIVE, STATUSES, type SessionStatus };

export interface PendingInput {
  content: string;
  /** Seq of the user_message event that recorded it. */
  seq: number;
  /** Credits the sender reserved for the turn that answers it (a council member's stage): used instead of a new reservation. */
  reservationId?: string;
}

export interface SessionRow {
  id: string;
  tenant_id: string;
  agent_id: string;
  project_id: string | null;
  name: string;
  source: string;
  status: SessionStatus;
  status_code: string | null;
  status_reason: string | null;
  provider: string;
  model: string;
  working_dir: string;
  timeout_minutes: number;
  timeout_at: string | null;
  timeout_remaining_ms: number | null;
  turns_per_context: number;
  approval_timeout_ms: number;
  resume_unit_ms: number;
  turns: number;
  context_resets: number;
  cost_micro: number;
  input_tokens: number;
  output_tokens: number;
  pending_inputs: string;
  continuing: boolean | number;
  resume_attempts: number;
  next_resume_at: string | null;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  ended_at: string | null;
}

export interface ListFilter extends PageRequest {
  projectId?: string;
  agentId?: string;
  status?: string;
}

export class SessionStore {
  constructor(
    private readonly db: Knex,
    private readonly sql: SqlReader,
  ) {}

  /** Sessions of the tenant that hold a place now (created, running, resumed): its plan's concurrent sessions. */
  async countActive(tenantId: string): Promise<number> {
    const row = await this.db('sessions').where({ tenant_id: tenantId }).whereIn('status', ['created', 'running', 'resumed']).count<{ n: number | string }[]>({ n: '*' }).first();
    return Number(row?.n ?? 0);
  }

  async insert(row: SessionRow): Promise<void> {
    await this.db('sessions').insert(row);
  }

  async get(tenantId: string, id: string): Promise<SessionRow | undefined> {
    return normalise(await this.sql.get<SessionRow>('SELECT * FROM sessions WHERE tenant_id = ? AND id = ?', [tenantId, id]));
  }

  async list(tenantId: string, filter: ListFilter): Promise<{ rows: SessionRow[]; total?: number; hasMore: boolean }> {
    let from = 'sessions WHERE tenant_id = ?';
    const params: SqlValue[] = [tenantId];
    for (const [column, value] of [['project_id', filter.projectId], ['agent_id', filter.agentId], ['status', filter.status]] as const) {
      if (!value) continue;
      from += ` AND ${column} = ?`;
      params.push(value);
    }
    const { rows, total, hasMore } = await paged<SessionRow>(this.sql, { from, params, orderBy: 'created_at DESC, id' }, filter);
    return { rows: rows.map((r) => normalise(r)!), ...(total === undefined ? {} : { total }), hasMore };
  }

  /** Every session that should be running or waiting to resume, across tenants. */
  async live(): Promise<SessionRow[]> {
    const rows = await this.db<SessionRow>('sessions').whereIn('status', LIVE as SessionStatus[]).orderBy('created_at');
    return rows.map((r) => normalise(r)!);
  }

  async patch(id: string, patch: Partial<SessionRow>): Promise<void> {
    await this.db('sessions').where({ id }).update({ updated_at: new Date().toISOString(), ...patch });
  }

  async remove(tenantId: string, id: string): Promise<boolean> {
    return (await this.db('sessions').where({ tenant_id: tenantId, id }).delete()) > 0;
  }
}

/** SQLite hands numbers and booleans back loosely; make them what the row type says. */
function normalise(row: SessionRow | undefined): SessionRow | undefined {
  if (!row) return undefined;
  for (const key of ['turns', 'context_resets', 'cost_micro', 'input_tokens', 'output_tokens', 'resume_attempts'] as const) {
    row[key] = Number(row[key]);
  }
  row.continuing = Boolean(row.continuing);
  row.timeout_remaining_ms = row.timeout_remaining_ms === null ? null : Number(row.timeout_remaining_ms);
  return row;
}

export function pendingOf(row: SessionRow): PendingInput[] {
  return JSON.parse(row.pending_inputs) as PendingInput[];
}

/** The public shape of a session; `live` adds what only the running process knows. */
export function toView(row: SessionRow, live: { pid: number | null; busy: boolean; contextTurns: number } | null): SessionRecord {
  return {
    id: row.id,
    name: row.name,
    agentId: row.agent_id,
    projectId: row.project_id,
    source: row.source,
    status: row.status,
    statusCode: row.status_code,
    statusReason: row.status_reason,
    pid: live?.pid ?? null,
    busy: live?.busy ?? false,
    provider: row.provider,
    model: row.model,
    workingDir: row.working_dir,
    turns: row.turns,
    contextTurns: live?.contextTurns ?? 0,
    turnsPerContext: row.turns_per_context,
    contextResets: row.context_resets,
    cost: row.cost_micro,
    usage: { inputTokens: row.input_tokens, outputTokens: row.output_tokens },
    pendingMessages: pendingOf(row).length,
    timeoutMinutes: row.timeout_minutes,
    timeoutAt: row.timeout_at,
    approvalTimeoutSeconds: row.approval_timeout_ms / 1000,
    resumeUnitMs: row.resume_unit_ms,
    resumeAttempts: row.resume_attempts,
    nextResumeAt: row.next_resume_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    startedAt: row.started_at,
    endedAt: row.ended_at,
  };
}

export type SessionView = SessionRecord;
