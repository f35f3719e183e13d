// The durable steps of a run, each one transaction: a run starts with its start node ready; a node
// completes and its successors become ready in the same commit (so a crash leaves either the node
// unfinished, to be resumed, or finished with its successors recorded — never half of it).
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { RoostError } from '../../protocol/errors.js';
import type { Graph, WorkflowEdge } from './node-types.js';
import type { NodeRunRow, RunRow } from './run-store.js';
import type { Workflow } from './store.js';

/** A run may make at most this many node runs (a workflow's settings may lower it). */
export const MAX_NODE_RUNS = 1_000;

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
    claimed_by: null,
    created_at: new Date().toISOString(),
    started_at: null,
    ended_at: null,
  };
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
    const done = { status: 'completed' as const, output: JSON.stringify(output ?? null), branch, ended_at: now, wake_at: null };
    const closed = await trx('workflow_node_runs').where({ id: nodeRun.id }).whereIn('status', ['running', 'waiting']).update(done);
    if (closed === 0) return undefined;
    const run = (await trx('workflow_runs').where({ id: nodeRun.run_id }).first()) as RunRow;
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
    if (seq !== run.node_runs) await trx('workflow_runs').where({ id: run.id }).update({ node_runs: seq, updated_at: now });
    return { completed: { ...nodeRun, ...done }, ready };
  });
}
