// The node types a workflow may use: each one's config schema, which of its fields are templates or
// expressions, and which branches its outgoing edges may name.

export const NODE_TYPES = [
  'start', 'end', 'agent_session', 'council', 'work_task', 'condition', 'delay', 'webhook', 'approval', 'transform', 'loop', 'parallel', 'join',
] as const;
export type NodeType = (typeof NODE_TYPES)[number];

export interface WorkflowNode {
  id: string;
  type: NodeType;
  name?: string;
  config?: Record<string, unknown>;
  position?: { x: number; y: number };
}

export interface WorkflowEdge {
  from: string;
  to: string;
  /** condition: "true" / "false"; loop: "body" / "exit"; approval: "approved" / "rejected" (none: approved). */
  branch?: string;
}

export interface Graph {
  nodes: WorkflowNode[];
  edges: WorkflowEdge[];
}

const text = (max: number) => ({ type: 'string', minLength: 1, maxLength: max });
const id = text(100);
const seconds = { type: 'number', exclusiveMinimum: 0, maximum: 31_536_000 };
const object = (properties: Record<string, unknown>, required: string[] = []) => ({ type: 'object', additionalProperties: false, required, properties });

/** JSON Schemas of each type's `config`. */
export const CONFIG_SCHEMAS: Record<NodeType, object> = {
  start: object({}),
  end: object({ output: {} }),
  agent_session: object({ agentId: id, prompt: text(100_000), projectId: id, timeoutMinutes: { type: 'number', exclusiveMinimum: 0, maximum: 1440 }, waitSeconds: seconds }, ['agentId', 'prompt']),
  council: object({ councilId: id, prompt: text(100_000), waitSeconds: seconds }, ['councilId', 'prompt']),
  work_task: object({ description: text(100_000), agentId: id, projectId: id, waitSeconds: seconds }, ['description']),
  condition: object({ expression: text(2_000) }, ['expression']),
  delay: { ...object({ seconds, until: text(200) }), oneOf: [{ required: ['seconds'] }, { required: ['until'] }] },
  webhook: object({ timeoutSeconds: seconds }),
  approval: object({ message: text(10_000), timeoutSeconds: seconds }),
  transform: object({ template: {} }, ['template']),
  loop: object({ maxIterations: { type: 'integer', minimum: 1, maximum: 1_000 }, while: text(2_000) }, ['maxIterations']),
  parallel: object({}),
  join: object({}),
};

/** Config fields holding `{{…}}` templates. */
export const TEMPLATE_FIELDS: Partial<Record<NodeType, string[]>> = {
  end: ['output'],
  agent_session: ['prompt', 'agentId', 'projectId'],
  council: ['prompt', 'councilId'],
  work_task: ['description', 'agentId', 'projectId'],
  delay: ['until'],
  approval: ['message'],
  transform: ['template'],
};

/** Config fields holding condition expressions. */
export const EXPRESSION_FIELDS: Partial<Record<NodeType, string[]>> = {
  condition: ['expression'],
  loop: ['while'],
};

/** The branches a type's outgoing edges name; a type missing here takes edges without a branch. */
export const BRANCHES: Partial<Record<NodeType, { names: string[]; required: string[] }>> = {
  condition: { names: ['true', 'false'], required: [] },
  loop: { names: ['body', 'exit'], required: ['body', 'exit'] },
  approval: { names: ['approved', 'rejected'], required: [] },
};

/** Types whose node runs start something outside this extension (their ids are kept for resuming). */
export const SIDE_EFFECT_TYPES = new Set<NodeType>(['agent_session', 'council', 'work_task']);
