// The workflow editor's model: the node types the workflows API knows, the config fields the editor
// shows for each (named as the API's config schemas name them), the branches a type's edges take, and
// the pure edits the editor makes to a graph.

export interface FlowNode {
  id: string;
  type: string;
  name?: string;
  config?: Record<string, unknown>;
  position: { x: number; y: number };
}
export interface FlowEdge {
  from: string;
  to: string;
  branch?: string;
}
export interface Flow {
  nodes: FlowNode[];
  edges: FlowEdge[];
}

/** How a config field is edited: text, a number, JSON (any value; text that is not JSON is kept as a string), or a pick of records. */
export type FieldKind = 'text' | 'long' | 'number' | 'json' | 'agent' | 'council' | 'project';
export interface ConfigField {
  key: string;
  label: string;
  kind: FieldKind;
  required?: boolean;
}

const wait: ConfigField = { key: 'waitSeconds', label: 'Wait for it, seconds', kind: 'number' };

export const NODE_TYPES: Record<string, { label: string; fields: ConfigField[] }> = {
  start: { label: 'Start', fields: [] },
  agent_session: {
    label: 'Ask an agent',
    fields: [
      { key: 'agentId', label: 'Agent', kind: 'agent', required: true },
      { key: 'prompt', label: 'Prompt', kind: 'long', required: true },
      { key: 'projectId', label: 'Project', kind: 'project' },
      { key: 'timeoutMinutes', label: 'Time limit, minutes', kind: 'number' },
      wait,
    ],
  },
  council: { label: 'Council', fields: [{ key: 'councilId', label: 'Council', kind: 'council', required: true }, { key: 'prompt', label: 'Prompt', kind: 'long', required: true }, wait] },
  work_task: {
    label: 'Work task',
    fields: [{ key: 'description', label: 'Task description', kind: 'long', required: true }, { key: 'agentId', label: 'Agent', kind: 'agent' }, { key: 'projectId', label: 'Project', kind: 'project' }, wait],
  },
  condition: { label: 'Condition', fields: [{ key: 'expression', label: 'Expression', kind: 'text', required: true }] },
  delay: { label: 'Delay', fields: [{ key: 'seconds', label: 'Seconds', kind: 'number' }, { key: 'until', label: 'Until (a time or a template)', kind: 'text' }] },
  webhook: { label: 'Wait for a webhook', fields: [{ key: 'timeoutSeconds', label: 'Time-out, seconds', kind: 'number' }] },
  approval: { label: 'Approval', fields: [{ key: 'message', label: 'Message', kind: 'long' }, { key: 'timeoutSeconds', label: 'Time-out, seconds', kind: 'number' }] },
  transform: { label: 'Transform', fields: [{ key: 'template', label: 'Template (JSON)', kind: 'json', required: true }] },
  loop: { label: 'Loop', fields: [{ key: 'maxIterations', label: 'At most, iterations', kind: 'number', required: true }, { key: 'while', label: 'While (expression)', kind: 'text' }] },
  parallel: { label: 'Parallel', fields: [] },
  join: { label: 'Join', fields: [] },
  end: { label: 'End', fields: [{ key: 'output', label: 'Output (JSON)', kind: 'json' }] },
};

/** The branches a type's outgoing edges name (the others take none). */
export const BRANCHES: Record<string, string[]> = { condition: ['true', 'false'], loop: ['body', 'exit'], approval: ['approved', 'rejected'] };

export const NODE_W = 160;
export const NODE_H = 48;

/** A fresh id for a node of `type`, unique in the flow (ids are letters, digits and _). */
export function freshId(flow: Flow, type: string): string {
  for (let n = 1; ; n++) {
    const id = `${type}_${n}`;
    if (!flow.nodes.some((node) => node.id === id)) return id;
  }
}

/** An edge from `from` to `to`, on the first branch of its source not yet taken. Unchanged if it exists or would loop on itself. */
export function connect(flow: Flow, from: string, to: string, branch?: string): Flow {
  if (from === to) return flow;
  const source = flow.nodes.find((n) => n.id === from);
  const names = BRANCHES[source?.type ?? ''];
  const chosen = branch ?? names?.find((b) => !flow.edges.some((e) => e.from === from && e.branch === b)) ?? names?.[0];
  if (flow.edges.some((e) => e.from === from && e.to === to && e.branch === chosen)) return flow;
  return { ...flow, edges: [...flow.edges, { from, to, ...(chosen ? { branch: chosen } : {}) }] };
}

export function removeNode(flow: Flow, id: string): Flow {
  return { nodes: flow.nodes.filter((n) => n.id !== id), edges: flow.edges.filter((e) => e.from !== id && e.to !== id) };
}

/** Renames a node, carrying its edges along. */
export function renameNode(flow: Flow, id: string, next: string): Flow {
  const swap = (x: string) => (x === id ? next : x);
  return { nodes: flow.nodes.map((n) => (n.id === id ? { ...n, id: next } : n)), edges: flow.edges.map((e) => ({ ...e, from: swap(e.from), to: swap(e.to) })) };
}

export function updateNode(flow: Flow, id: string, patch: Partial<FlowNode>): Flow {
  return { ...flow, nodes: flow.nodes.map((n) => (n.id === id ? { ...n, ...patch } : n)) };
}

/** The graph as the API takes it (positions kept, so the editor lays it out again as it was). */
export function toApi(flow: Flow): { nodes: unknown[]; edges: FlowEdge[] } {
  return {
    nodes: flow.nodes.map((n) => ({ id: n.id, type: n.type, ...(n.name ? { name: n.name } : {}), ...(n.config && Object.keys(n.config).length ? { config: n.config } : {}), position: { x: Math.round(n.position.x), y: Math.round(n.position.y) } })),
    edges: flow.edges,
  };
}

/** The problems of the API's refusal (its details.problems, else its message), and the nodes each names. */
export function problemsOf(refusal: { message: string; problems?: string[] }): Array<{ text: string; nodes: string[] }> {
  const list = refusal.problems ?? [refusal.message];
  return list.map((text) => ({ text, nodes: [...text.matchAll(/node "([^"]+)"|edge (\w+) → (\w+)/g)].flatMap((m) => [m[1], m[2], m[3]].filter((x): x is string => !!x)) }));
}
