// The durable steps of a run, each one transaction: a run starts with its start node ready; a node
// completes and its successors become ready in the same commit (so a crash leaves either the node
// unfinished, to be resumed, or finished with its successors recorded — never half of it).
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { RoostError } from '../../protocol/errors.js';
import type { Graph, WorkflowEdge } from './node-types.js';
import type { NodeRunRow, RunRow } from './run-store.js';
import type { Workflow } from './store.js';
import { dataTooLarge, MAX_NODE_DATA_BYTES } from './template.js';

/** A run may make at most this many node runs (a workflow's settings may lower it). */
export const MAX_NODE_RUNS = 1_000;
/** Bytes of node outputs one run may store in all (a loop of large outputs stops here). */
export const MAX_RUN_DATA_BYTES = 16 * 1024 * 1024;
/** Errors of a completion that fail the node (and the run) rather than the engine. */
export const NODE_LIMIT_CODES = new Set(['NODE_RUN_LIMIT', 'DATA_TOO_LARGE']);

/** `value` as the JSON stored for a node's `what` (input or output); DATA_TOO_LARGE over the limit. */
export function nodeJson(value: unknown, what: string): string {
  const text = JSON.stringify(value ?? null);
  const bytes = Buffer.byteLength(text);
  if (bytes > MAX_NODE_DATA_BYTES) throw dataTooLarge(`the node's ${what} is ${bytes} bytes, over ${MAX_NODE_DATA_BYTES}`);
  return text;
}

export async function insertRun(db: Knex, tenantId: string, workflow: Workflow, input: unknown, createdBy: string): Promise<RunRow> {
  const now = new Date().toISOString();
  const start = workflow.nodes.find((n) => n.type === 'start')!;
  const run: RunRow = {
    id: randomUUID(),
    tenant_id: tenantId,
    workflow_id: workflow.id,
    workflow_version: workflow.version,
    graph: JSON.stringify({ nodes: workflow.nodes, edges: workflow.edges }),
    settings: JSON.stringify(workflow.settings),
    status: 'running',
    input: JSON.stringify(input ?? null),
    output: null,
    error: null,
    error_code: null,
    node_runs: 1,
    cost_micro: 0,
    data_bytes: 0,
    created_by: createdBy,
    created_at: now,
    updated_at: now,
    ended_at: null,
  };
  await db.transaction(async (trx) => {
    await trx('workflow_runs').insert(run);
    await trx('workflow_node_runs').insert(newNodeRun(run.id, 1, start.id, start.type, null, 'pending', {}));
  });
  return run;
}

function newNodeRun(runId: string, seq: number, nodeId: string, type: string, from: string | null, status: 'pending' | 'waiting', state: object): NodeRunRow {
  return {
    id: randomUUID(),
    run_id: runId,
    seq,
    node_id: nodeId,
    node_type: type,
    status,
    input: null,
    output: null,
    state: JSON.stringify(state),
    branch: null,
    error: null,
    error_code: null,
    from_node_run: from,
    wake_at: null,
    cost_micro: 0,
    claimed_by: null,
    created_at: new Date().toISOString(),
    started_at: null,
    ended_at: null,
  };
}

/** Reads a run's row locked until the end of `trx`, so changes to its node runs are serialised. */
export function lockRun(trx: Knex.Transaction, runId: string): Promise<RunRow | undefined> {
  const query = trx<RunRow>('workflow_runs').where({ id: runId });
  return (trx.client.config.client === 'pg' ? query.forUpdate() : query).first();
}

/** The edges a finished node follows: all of them, or those of the branch it took. */
export function edgesTaken(graph: Graph, nodeRun: NodeRunRow, branch: string | null): WorkflowEdge[] {
  const out = graph.edges.filter((e) => e.from === nodeRun.node_id);
  if (nodeRun.node_type === 'approval') return out.filter((e) => (e.branch ?? 'approved') === branch);
  if (branch === null) return out;
  return out.filter((e) => e.branch === branch);
}

export interface Completion {
  /** The node run as it was stored completed. */
  completed: NodeRunRow;
  /** Node runs made ready by this completion. */
  ready: NodeRunRow[];
}

/**
 * Marks the node run completed with its output and records what follows, in one transaction. Returns
 * undefined when the node run was no longer open (cancelled meanwhile): nothing is recorded then.
 */
export async function completeNode(db: Knex, graph: Graph, nodeRun: NodeRunRow, output: unknown, branch: string | null, maxNodeRuns: number): Promise<Completion | undefined> {
  return db.transaction(async (trx) => {
    const now = new Date().toISOString();
    // The run's row is locked first (FOR UPDATE on PostgreSQL; SQLite has one writer): two branches that
    // complete at once then take turns, so each reads the other's node-run count and join arrivals.
    const run = (await lockRun(trx, nodeRun.run_id)) as RunRow;
    const done = { status: 'completed' as const, output: nodeJson(output, 'output'), branch, ended_at: now, wake_at: null };
    const dataBytes = Number(run.data_bytes) + Buffer.byteLength(done.output);
    if (dataBytes > MAX_RUN_DATA_BYTES) throw dataTooLarge(`the run's node outputs would take ${dataBytes} bytes, over ${MAX_RUN_DATA_BYTES} for a run`);
    const closed = await trx('workflow_node_runs').where({ id: nodeRun.id }).whereIn('status', ['running', 'waiting']).update(done);
    if (closed === 0) return undefined;
    let seq = run.node_runs;
    const ready: NodeRunRow[] = [];
    for (const edge of edgesTaken(graph, nodeRun, branch)) {
      const target = graph.nodes.find((n) => n.id === edge.to)!;
      if (target.type === 'join') {
        const open = (await trx('workflow_node_runs').where({ run_id: run.id, node_id: target.id, status: 'waiting' }).orderBy('seq').first()) as NodeRunRow | undefined;
        const sources = [...new Set(graph.edges.filter((e) => e.to === target.id).map((e) => e.from))];
        if (open) {
          const arrived = [...new Set([...(JSON.parse(open.state) as { arrived: string[] }).arrived, nodeRun.node_id])];
          const complete = sources.every((s) => arrived.includes(s));
          await trx('workflow_node_runs').where({ id: open.id }).update({ state: JSON.stringify({ arrived }), ...(complete ? { status: 'pending' } : {}) });
          if (complete) ready.push({ ...open, status: 'pending', state: JSON.stringify({ arrived }) });
          continue;
        }
        const join = newNodeRun(run.id, ++seq, target.id, target.type, nodeRun.id, 'waiting', { arrived: [nodeRun.node_id] });
        await trx('workflow_node_runs').insert(join);
        continue;
      }
      const next = newNodeRun(run.id, ++seq, target.id, target.type, nodeRun.id, 'pending', { fromNode: nodeRun.node_id });
      await trx('workflow_node_runs').insert(next);
      ready.push(next);
    }
    if (seq > maxNodeRuns) {
      throw new RoostError('NODE_RUN_LIMIT', `the run reached its limit of ${maxNodeRuns} node runs (node "${nodeRun.node_id}" would make run ${seq}); raise settings.maxNodeRuns (at most ${MAX_NODE_RUNS}) or bound the loop`, { status: 409 });
    }
    await trx('workflow_runs').where({ id: run.id }).update({ node_runs: seq, data_bytes: dataBytes, updated_at: now });
    return { completed: { ...nodeRun, ...done }, ready };
  });
}
