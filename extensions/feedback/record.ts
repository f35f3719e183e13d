// Outcomes heard on the bus, one row per subject (a later event about the same subject replaces it):
// sessions that ended (stopped: completed; error or timeout: failed; a session stopped because it was
// deleted is no outcome), approvals decided by a person or a policy, councils that concluded (their
// agreement), work tasks that merged or failed.
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { COUNCILS_EVENTS } from '../councils/contract.js';
import { WORK_TASKS_EVENTS } from '../work-tasks/contract.js';
import { SESSION_TOPICS } from '../sessions/contract.js';

type Payload = Record<string, any>;

export type Kind = 'session' | 'approval' | 'council' | 'work_task';

interface Outcome {
  kind: Kind;
  subjectId: string;
  agentId: string | null;
  label: string;
  value: number;
}

const SESSION_OUTCOME: Record<string, number> = { stopped: 1, error: 0, timeout: 0 };

export function outcomeOf(topic: string, payload: Payload): Outcome | undefined {
  if (topic === SESSION_TOPICS.lifecycle) {
    const s = payload.session ?? {};
    if (typeof s.id !== 'string' || !(s.status in SESSION_OUTCOME)) return undefined;
    // Deleting a running session stops it (reason `deleted`): it was thrown away, not completed —
    // exams, for one, delete every session they run.
    if (s.statusReason === 'deleted') return undefined;
    return { kind: 'session', subjectId: s.id, agentId: s.agentId ?? null, label: s.status, value: SESSION_OUTCOME[s.status]! };
  }
  if (topic === SESSION_TOPICS.approval && typeof payload.sessionId === 'string' && typeof payload.toolName === 'string') {
    // Every decision counts once: no later event is about the same one.
    return { kind: 'approval', subjectId: randomUUID(), agentId: payload.agentId ?? null, label: `${payload.toolName}:${payload.by ?? ''}`, value: payload.behavior === 'allow' ? 1 : 0 };
  }
  if (topic === COUNCILS_EVENTS.outcome && typeof payload.launchId === 'string' && typeof payload.agreement === 'number') {
    return { kind: 'council', subjectId: payload.launchId, agentId: null, label: String(payload.councilId ?? ''), value: Math.min(1, Math.max(0, payload.agreement)) };
  }
  if (topic === WORK_TASKS_EVENTS.outcome && typeof payload.taskId === 'string') {
    return { kind: 'work_task', subjectId: payload.taskId, agentId: payload.agentId ?? null, label: String(payload.status ?? ''), value: payload.merged === true ? 1 : 0 };
  }
  return undefined;
}

export async function record(db: Knex, tenantId: string, topic: string, payload: Payload): Promise<void> {
  const outcome = outcomeOf(topic, payload);
  if (!outcome) return;
  await db('outcomes')
    .insert({ tenant_id: tenantId, kind: outcome.kind, subject_id: outcome.subjectId, agent_id: outcome.agentId, label: outcome.label, value: outcome.value, at: new Date().toISOString() })
    .onConflict(['tenant_id', 'kind', 'subject_id'])
    .merge(['label', 'value', 'at']);
}
