// Council launches and their members, always read within one tenant. Stage changes are compare-and-set
// on the stored stage, so an abort racing the runner always leaves one consistent stage.
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { paged, type PageRequest } from '../../sdk/db.js';
import type { SqlReader, SqlValue } from '../../sdk/sql.js';
import type { Council } from './council-store.js';
import { LAUNCH_STAGES, type LaunchStage } from './contract.js';

export const STAGES = LAUNCH_STAGES;
export type Stage = LaunchStage;
export const ACTIVE_STAGES: Stage[] = ['responding', 'discussing', 'reviewing', 'synthesizing'];
/** running: the stage's work is under way; waiting: it is done and the next stage starts by hand; done: final. */
export type StageState = 'running' | 'waiting' | 'done';

export type LaunchConfig = Pick<Council, 'name' | 'rounds' | 'questionTemplate' | 'quorum' | 'memberTimeoutSeconds' | 'chairId' | 'synthesizerId'>;

export interface Member {
  agentId: string;
  name: string;
  status: 'active' | 'failed';
  error: string | null;
  sessionId: string | null;
  /** The step ("discussing:2") whose question was sent and not yet answered, and the event seq its answer follows. */
  pendingStep: string | null;
  pendingAfter: number | null;
}

export interface Launch {
  id: string;
  tenantId: string;
  councilId: string;
  prompt: string;
  config: LaunchConfig;
  stage: Stage;
  stageState: StageState;
  auto: boolean;
  /** The discussion round under way or last finished (0 before the discussion). */
  round: number;
  synthesizerId: string | null;
  synthesisSessionId: string | null;
  /** The event seq the synthesizer's answer follows, while it is awaited. */
  synthesisAfter: number | null;
  result: string | null;
  error: string | null;
  createdAt: string;
  updatedAt: string;
  finishedAt: string | null;
  members: Member[];
}

interface Row {
  id: string;
  tenant_id: string;
  council_id: string;
  prompt: string;
  config: string;
  stage: Stage;
  stage_state: StageState;
  auto: number | boolean;
  round: number;
  synthesizer_id: string | null;
  synthesis_session_id: string | null;
  synthesis_after: number | null;
  result: string | null;
  error: string | null;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
  /** The caller's key for this launch: asking again with it answers this launch (unique per tenant). */
  idempotency_key?: string | null;
}

interface MemberRow {
  launch_id: string;
  agent_id: string;
  position: number;
  name: string;
  status: Member['status'];
  error: string | null;
  session_id: string | null;
  pending_step: string | null;
  pending_after: number | null;
}

export type LaunchPatch = Partial<{ round: number; synthesizer_id: string; synthesis_session_id: string; synthesis_after: number | null; result: string; error: string }>;

export class LaunchStore {
  constructor(
    private readonly db: Knex,
    private readonly sql: SqlReader,
  ) {}

  async create(tenantId: string, input: { councilId: string; prompt: string; config: LaunchConfig; auto: boolean; members: Array<{ agentId: string; name: string }>; idempotencyKey?: string }): Promise<Launch> {
    const now = new Date().toISOString();
    const row: Row = {
      id: randomUUID(), tenant_id: tenantId, council_id: input.councilId, prompt: input.prompt, config: JSON.stringify(input.config),
      stage: 'responding', stage_state: 'running', auto: input.auto, round: 0, synthesizer_id: null, synthesis_session_id: null, synthesis_after: null,
      result: null, error: null, created_at: now, updated_at: now, finished_at: null, idempotency_key: input.idempotencyKey ?? null,
    };
    const members: MemberRow[] = input.members.map((m, position) => ({
      launch_id: row.id, agent_id: m.agentId, position, name: m.name, status: 'active', error: null, session_id: null, pending_step: null, pending_after: null,
    }));
    await this.db.transaction(async (trx) => {
      await trx('council_launches').insert(row);
      await trx('council_launch_members').insert(members);
    });
    return toLaunch(row, members);
  }

  async get(tenantId: string, id: string): Promise<Launch | undefined> {
    const row = await this.sql.get<Row>('SELECT * FROM council_launches WHERE tenant_id = ? AND id = ?', [tenantId, id]);
    return row && toLaunch(row, await this.memberRows(id));
  }

  /** The launch made earlier with this idempotency key, if any. */
  async byIdempotencyKey(tenantId: string, key: string): Promise<Launch | undefined> {
    const row = await this.sql.get<Row>('SELECT * FROM council_launches WHERE tenant_id = ? AND idempotency_key = ?', [tenantId, key]);
    return row && toLaunch(row, await this.memberRows(row.id));
  }

  async list(tenantId: string, filter: { councilId?: string }, page: PageRequest): Promise<{ launches: Launch[]; total?: number; hasMore: boolean }> {
    const params: SqlValue[] = [tenantId];
    let from = 'council_launches WHERE tenant_id = ?';
    if (filter.councilId !== undefined) {
      from += ' AND council_id = ?';
      params.push(filter.councilId);
    }
    const { rows, total, hasMore } = await paged<Row>(this.sql, { from, params, orderBy: 'created_at DESC, id' }, page);
    // The members of the whole page in one query.
    const members = rows.length === 0 ? [] : await this.db<MemberRow>('council_launch_members').whereIn('launch_id', rows.map((r) => r.id)).orderBy('position');
    const launches = rows.map((row) => toLaunch(row, members.filter((m) => m.launch_id === row.id)));
    return { launches, ...(total === undefined ? {} : { total }), hasMore };
  }

  /** Launches whose stage's work was under way: the ones to take up again at start-up. */
  async running(): Promise<Launch[]> {
    const rows = await this.db<Row>('council_launches').where({ stage_state: 'running' }).whereIn('stage', ACTIVE_STAGES).orderBy('created_at');
    return Promise.all(rows.map(async (row) => toLaunch(row, await this.memberRows(row.id))));
  }

  async hasActive(tenantId: string, councilId: string): Promise<boolean> {
    const row = await this.db('council_launches').where({ tenant_id: tenantId, council_id: councilId }).whereIn('stage', ACTIVE_STAGES).first('id');
    return row !== undefined;
  }

  /** Moves the launch from `from` (stage and state) to `to`; false when it was no longer there (aborted meanwhile). */
  async move(id: string, from: { stage: Stage | Stage[]; state?: StageState }, to: { stage: Stage; state: StageState }, patch: LaunchPatch = {}, trx: Knex = this.db): Promise<boolean> {
    const now = new Date().toISOString();
    let query = trx('council_launches').where({ id }).whereIn('stage', Array.isArray(from.stage) ? from.stage : [from.stage]);
    if (from.state) query = query.andWhere({ stage_state: from.state });
    const finished = to.state === 'done' ? { finished_at: now } : {};
    return (await query.update({ stage: to.stage, stage_state: to.state, updated_at: now, ...finished, ...patch })) > 0;
  }

  async patch(id: string, patch: LaunchPatch): Promise<void> {
    await this.db('council_launches').where({ id }).update({ ...patch, updated_at: new Date().toISOString() });
  }

  async updateMember(launchId: string, agentId: string, patch: Partial<Pick<MemberRow, 'status' | 'error' | 'session_id' | 'pending_step' | 'pending_after'>>): Promise<void> {
    await this.db('council_launch_members').where({ launch_id: launchId, agent_id: agentId }).update(patch);
  }

  private memberRows(launchId: string): Promise<MemberRow[]> {
    return this.sql.all<MemberRow>('SELECT * FROM council_launch_members WHERE launch_id = ? ORDER BY position', [launchId]);
  }
}

function toLaunch(row: Row, members: MemberRow[]): Launch {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    councilId: row.council_id,
    prompt: row.prompt,
    config: JSON.parse(row.config) as LaunchConfig,
    stage: row.stage,
    stageState: row.stage_state,
    auto: Boolean(row.auto),
    round: Number(row.round),
    synthesizerId: row.synthesizer_id,
    synthesisSessionId: row.synthesis_session_id,
    synthesisAfter: row.synthesis_after === null ? null : Number(row.synthesis_after),
    result: row.result,
    error: row.error,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    finishedAt: row.finished_at,
    members: members.map((m) => ({
      agentId: m.agent_id, name: m.name, status: m.status, error: m.error, sessionId: m.session_id, pendingStep: m.pending_step,
      pendingAfter: m.pending_after === null ? null : Number(m.pending_after),
    })),
  };
}
