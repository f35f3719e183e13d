// Workflow runs and their node runs: rows, views and the reads the routes and the engine need.
import type { Knex } from 'knex';
import { paged, type PageRequest } from '../../sdk/db.js';
import type { SqlReader, SqlValue } from '../../sdk/sql.js';
import type { Graph } from './node-types.js';
import { lockRun } from './transitions.js';
import type { WorkflowSettings } from './store.js';
import { RUN_STATUSES, type RunStatus } from './contract.js';

export { RUN_STATUSES, type RunStatus };
export const ACTIVE_RUN: RunStatus[] = ['running', 'paused'];

/** pending: ready to run; running: executing; waiting: a delay, webhook, approval or join's other branches. */
export type NodeRunStatus = 'pending' | 'running' | 'waiting' | 'completed' | 'failed' | 'cancelled';
export const OPEN_NODE: NodeRunStatus[] = ['pending', 'running', 'waiting'];

export interface RunRow {
  id: string;
  tenant_id: string;
  workflow_id: string;
  workflow_version: number;
  graph: string;
  settings: string;
  status: RunStatus;
  input: string;
  output: string | null;
  error: string | null;
  error_code: string | null;
  node_runs: number;
  /** MicroUnits its nodes' sessions were charged (council and work-task sessions included). */
  cost_micro: number | string;
  /** Bytes of node outputs stored (MAX_RUN_DATA_BYTES). */
  data_bytes: number | string;
  created_by: string;
  created_at: string;
  updated_at: string;
  ended_at: string | null;
}

export interface NodeRunRow {
  id: string;
  run_id: string;
  seq: number;
  node_id: string;
  node_type: string;
  status: NodeRunStatus;
  input: string | null;
  output: string | null;
  state: string;
  branch: string | null;
  error: string | null;
  error_code: string | null;
  from_node_run: string | null;
  wake_at: number | string | null;
  cost_micro: number | string;
  claimed_by: string | null;
  created_at: string;
  started_at: string | null;
  ended_at: string | null;
}

const json = (text: string | null): unknown => (text === null ? null : JSON.parse(text));

export function runView(row: RunRow) {
  return {
    id: row.id,
    workflowId: row.workflow_id,
    workflowVersion: row.workflow_version,
    status: row.status,
    input: json(row.input),
    output: json(row.output),
    error: row.error,
    errorCode: row.error_code,
    nodeRunCount: row.node_runs,
    cost: Number(row.cost_micro ?? 0),
    createdBy: row.created_by,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    endedAt: row.ended_at,
  };
}

export function nodeRunView(row: NodeRunRow) {
  const state = json(row.state) as Record<string, unknown>;
  // The webhook token is derived, never stored; the engine adds it for members of the run's tenant.
  return {
    id: row.id,
    runId: row.run_id,
    seq: row.seq,
    nodeId: row.node_id,
    nodeType: row.node_type,
    status: row.status,
    input: json(row.input),
    output: json(row.output),
    state,
    branch: row.branch,
    error: row.error,
    errorCode: row.error_code,
    fromNodeRun: row.from_node_run,
    cost: Number(row.cost_micro ?? 0),
    wakeAt: row.wake_at === null ? null : new Date(Number(row.wake_at)).toISOString(),
    createdAt: row.created_at,
    startedAt: row.started_at,
    endedAt: row.ended_at,
  };
}

export const graphOf = (row: RunRow): Graph => JSON.parse(row.graph) as Graph;
export const settingsOf = (row: RunRow): WorkflowSettings => JSON.parse(row.settings) as WorkflowSettings;

export class RunStore {
  constructor(
    readonly db: Knex,
    private readonly sql: SqlReader,
  ) {}

  get(tenantId: string, id: string): Promise<RunRow | undefined> {
    return this.sql.get<RunRow>('SELECT * FROM workflow_runs WHERE tenant_id = ? AND id = ?', [tenantId, id]);
  }

  /** Any tenant's run: for the public webhook route (its token proves access) and the engine. */
  byId(id: string): Promise<RunRow | undefined> {
    return this.sql.get<RunRow>('SELECT * FROM workflow_runs WHERE id = ?', [id]);
  }

  async list(tenantId: string, filter: { workflowId?: string; status?: string }, page: PageRequest) {
    let from = 'workflow_runs WHERE tenant_id = ?';
    const params: SqlValue[] = [tenantId];
    if (filter.workflowId) {
      from += ' AND workflow_id = ?';
      params.push(filter.workflowId);
    }
    if (filter.status) {
      from += ' AND status = ?';
      params.push(filter.status);
    }
    const columns = 'id, tenant_id, workflow_id, workflow_version, status, input, output, error, error_code, node_runs, cost_micro, created_by, created_at, updated_at, ended_at';
    const result = await paged<RunRow>(this.sql, { from, params, orderBy: 'created_at DESC, id', columns }, page);
    return { runs: result.rows.map(runView), ...(result.total === undefined ? {} : { total: result.total }), hasMore: result.hasMore };
  }

  nodeRuns(runId: string): Promise<NodeRunRow[]> {
    return this.sql.all<NodeRunRow>('SELECT * FROM workflow_node_runs WHERE run_id = ? ORDER BY seq', [runId]);
  }

  nodeRun(id: string): Promise<NodeRunRow | undefined> {
    return this.sql.get<NodeRunRow>('SELECT * FROM workflow_node_runs WHERE id = ?', [id]);
  }

  /** Running or paused runs of the tenant (of one workflow, when given). */
  async activeRuns(tenantId: string, workflowId?: string): Promise<number> {
    const sql = `SELECT COUNT(*) AS n FROM workflow_runs WHERE tenant_id = ? AND status IN ('running', 'paused')${workflowId ? ' AND workflow_id = ?' : ''}`;
    const row = await this.sql.get<{ n: number | string }>(sql, workflowId ? [tenantId, workflowId] : [tenantId]);
    return Number(row?.n ?? 0);
  }

  /** Counts for GET /api/workflows/health. */
  async counts(tenantId: string): Promise<Record<string, number>> {
    const rows = await this.sql.all<{ status: string; n: number | string }>('SELECT status, COUNT(*) AS n FROM workflow_runs WHERE tenant_id = ? GROUP BY status', [tenantId]);
    return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
  }

  async patchRun(id: string, from: RunStatus[], patch: Partial<RunRow>): Promise<boolean> {
    const n = await this.db('workflow_runs').where({ id }).whereIn('status', from).update({ ...patch, updated_at: new Date().toISOString() });
    return n > 0;
  }

  async patchNode(id: string, from: NodeRunStatus[], patch: Partial<NodeRunRow>): Promise<boolean> {
    const n = await this.db('workflow_node_runs').where({ id }).whereIn('status', from).update(patch);
    return n > 0;
  }

  /**
   * Sets what a node run's sessions cost so far and moves its run's total by the difference, so a node
   * resumed after a crash that reports its cost again counts it once.
   */
  async setNodeCost(row: Pick<NodeRunRow, 'id' | 'run_id'>, costMicro: number): Promise<void> {
    await this.db.transaction(async (trx) => {
      await lockRun(trx, row.run_id);
      const before = (await trx<NodeRunRow>('workflow_node_runs').where({ id: row.id }).first('cost_micro'))?.cost_micro ?? 0;
      const delta = costMicro - Number(before);
      if (delta === 0) return;
      await trx('workflow_node_runs').where({ id: row.id }).update({ cost_micro: costMicro });
      await trx('workflow_runs').where({ id: row.run_id }).increment('cost_micro', delta);
    });
  }
}
