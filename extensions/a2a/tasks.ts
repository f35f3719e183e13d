// A2A tasks: what an A2A client asked one of this server's agents, and how far the agent got. A task's
// session lives in the sessions extension; the task keeps its state and result.
import type { Knex } from 'knex';

export type TaskState = 'submitted' | 'working' | 'completed' | 'failed' | 'canceled';
export const FINAL_STATES: ReadonlySet<TaskState> = new Set(['completed', 'failed', 'canceled']);

export interface TaskRow {
  tenant_id: string;
  id: string;
  context_id: string;
  agent_id: string;
  session_id: string | null;
  /** The session's last event before this task's message: where the task's answer starts. */
  after_seq: number;
  state: TaskState;
  input: string;
  result: string | null;
  error: string | null;
  created_at: string;
  updated_at: string;
}

export class TaskStore {
  constructor(private readonly db: Knex) {}

  async get(tenantId: string, id: string): Promise<TaskRow | undefined> {
    return this.db<TaskRow>('a2a_tasks').where({ tenant_id: tenantId, id }).first();
  }

  /** The latest task of a context for an agent that has a session: the conversation a new task continues. */
  async latestInContext(tenantId: string, contextId: string, agentId: string): Promise<TaskRow | undefined> {
    return this.db<TaskRow>('a2a_tasks').where({ tenant_id: tenantId, context_id: contextId, agent_id: agentId }).whereNotNull('session_id').orderBy('created_at', 'desc').first();
  }

  async create(row: Omit<TaskRow, 'created_at' | 'updated_at' | 'session_id' | 'after_seq' | 'result' | 'error' | 'state'>): Promise<TaskRow> {
    const now = new Date().toISOString();
    const full: TaskRow = { ...row, session_id: null, after_seq: 0, state: 'submitted', result: null, error: null, created_at: now, updated_at: now };
    await this.db('a2a_tasks').insert(full);
    return full;
  }

  /** Moves a task on, unless it already ended (a task that ended stays as it ended). */
  async update(tenantId: string, id: string, change: Partial<Pick<TaskRow, 'state' | 'session_id' | 'after_seq' | 'result' | 'error'>>): Promise<TaskRow> {
    await this.db('a2a_tasks')
      .where({ tenant_id: tenantId, id })
      .whereNotIn('state', [...FINAL_STATES])
      .update({ ...change, updated_at: new Date().toISOString() });
    return (await this.get(tenantId, id))!;
  }
}

/**
 * The task as the A2A protocol shapes it (https://a2a-protocol.org: Task, TaskStatus, Message, Artifact);
 * `historyLength` keeps only the last messages of the history (A2A's tasks/get and message/send).
 */
export function toA2ATask(row: TaskRow, historyLength?: number) {
  const text = (t: string) => [{ kind: 'text', text: t }];
  const userMessage = { kind: 'message', role: 'user', messageId: `${row.id}-input`, taskId: row.id, contextId: row.context_id, parts: text(row.input) };
  const answer = row.result ?? row.error;
  const agentMessage = answer === null ? undefined : { kind: 'message', role: 'agent', messageId: `${row.id}-${row.state}`, taskId: row.id, contextId: row.context_id, parts: text(answer) };
  const history = agentMessage ? [userMessage, agentMessage] : [userMessage];
  return {
    kind: 'task',
    id: row.id,
    contextId: row.context_id,
    status: { state: row.state, ...(agentMessage ? { message: agentMessage } : {}), timestamp: row.updated_at },
    artifacts: row.state === 'completed' && row.result !== null ? [{ artifactId: `${row.id}-result`, name: 'result', parts: text(row.result) }] : [],
    history: historyLength === undefined ? history : history.slice(history.length - Math.min(historyLength, history.length)),
    metadata: { agentId: row.agent_id, sessionId: row.session_id, createdAt: row.created_at },
  };
}
