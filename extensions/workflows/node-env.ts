// What a node's executor is given, and what it answers.
import type { CallAs, HostClient } from '../../sdk/host-client.js';
import type { Clock } from './clock.js';
import type { Graph, WorkflowNode } from './node-types.js';
import type { NodeRunRow, RunRow } from './run-store.js';

/** The run context templates and expressions read: input, run, and each node's latest output. */
export interface Scope {
  input: unknown;
  run: { id: string; workflowId: string };
  nodes: Record<string, { output: unknown; status: string }>;
}

export interface NodeEnv {
  host: HostClient;
  /** Calls run as the run's tenant (operator, actor extension:workflows). */
  as: CallAs;
  clock: Clock;
  /** Fires when the run is cancelled or this instance stops running it. */
  signal: AbortSignal;
  run: RunRow;
  graph: Graph;
  node: WorkflowNode;
  nodeRun: NodeRunRow;
  scope: Scope;
  /** The node's config with its templates rendered: what was persisted as the node run's input. */
  input: Record<string, unknown>;
  /** State persisted by an earlier attempt of this node run (ids of what it started). */
  state: Record<string, unknown>;
  /** Persists state before the node goes on: what it started must be found again after a crash. */
  saveState(patch: Record<string, unknown>): Promise<void>;
  /** Records what the node's sessions were charged so far (microUnits; the latest figure counts). */
  recordCost(costMicro: number): Promise<void>;
}

export type Outcome =
  | { done: true; output: unknown; branch?: string | null }
  /** The node waits: until `wakeAt` (engine clock, ms), or until a webhook or an approval arrives. */
  | { done: false; wakeAt: number | null; state: Record<string, unknown> };

export type Executor = (env: NodeEnv) => Promise<Outcome>;

export const done = (output: unknown, branch: string | null = null): Outcome => ({ done: true, output, branch });
