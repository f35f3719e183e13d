// Outcomes heard on the bus, recorded as reputation events of the agent they are about. A later event
// about the same subject (a session that ends again, a work task that merges after completing, a review
// deleted) replaces or forgets the earlier one.
import type { EventHandler, ExtensionContext } from '../../sdk/extension.js';
import { EventStore, type EventInput } from './events-store.js';
import { EVENT_KINDS, type EventKind } from './scoring.js';
import { COUNCILS_EVENTS, CouncilsClient } from '../councils/contract.js';
import { WORK_TASKS_EVENTS } from '../work-tasks/contract.js';
import { SESSION_TOPICS } from '../sessions/contract.js';

type Payload = Record<string, any>;

const event = (agentId: string, kind: EventKind, source: string, subject: string, detail: Record<string, unknown>, impact: number = EVENT_KINDS[kind]): EventInput => ({ agentId, kind, impact, source, subject, detail });

export function sessionEvent(p: Payload): EventInput | undefined {
  const s = p.session ?? {};
  if (typeof s.id !== 'string' || typeof s.agentId !== 'string') return undefined;
  if (s.status === 'stopped') return event(s.agentId, 'session_completed', 'sessions', `session:${s.id}`, { sessionId: s.id, status: s.status });
  if (s.status === 'error' || s.status === 'timeout') return event(s.agentId, 'session_failed', 'sessions', `session:${s.id}`, { sessionId: s.id, status: s.status, reason: s.statusReason ?? null });
  return undefined;
}

/** work_tasks.outcome: {taskId, agentId, tenantId, status, merged, prUrl, failureReason}. */
export function workTaskEvent(p: Payload): EventInput | undefined {
  if (typeof p.taskId !== 'string' || typeof p.agentId !== 'string') return undefined;
  const detail = { taskId: p.taskId, status: p.status ?? null, merged: p.merged === true, prUrl: p.prUrl ?? null, failureReason: p.failureReason ?? null };
  const failed = /fail|error|cancel|timeout|reject/i.test(String(p.status ?? '')) || (typeof p.failureReason === 'string' && p.failureReason !== '');
  const kind: EventKind = p.merged === true ? 'work_task_merged' : failed ? 'work_task_failed' : 'work_task_completed';
  return event(p.agentId, kind, 'work_tasks', `work_task:${p.taskId}`, detail);
}

export function useEvent(p: Payload): EventInput | undefined {
  if (typeof p.useId !== 'string' || typeof p.agentId !== 'string') return undefined;
  const kind: EventKind = p.outcome === 'success' ? 'use_succeeded' : 'reported_failure';
  return event(p.agentId, kind, 'marketplace', `use:${p.useId}`, { useId: p.useId, listingId: p.listingId ?? null, reason: p.reason ?? '' });
}

/** The members' votes of a concluded council launch, read from the councils extension as the tenant. */
async function councilEvents(ctx: ExtensionContext, tenantId: string, p: Payload): Promise<EventInput[]> {
  if (typeof p.launchId !== 'string') return [];
  const reply = await new CouncilsClient(ctx.host).discussion(p.launchId, 200, { tenantId });
  if (reply.status !== 200) return [];
  return ((reply.body?.messages ?? []) as Payload[])
    .filter((m) => m.kind === 'review' && typeof m.agentId === 'string')
    .map((m) => event(m.agentId, m.vote ? 'council_vote' : 'council_no_vote', 'councils', `council:${p.launchId}:${m.agentId}`, { launchId: p.launchId, councilId: p.councilId ?? null, vote: m.vote ?? null }));
}

export const onEvent: EventHandler = async ({ topic, payload, tenantId }, ctx) => {
  if (!tenantId || !payload || typeof payload !== 'object') return;
  const p = payload as Payload;
  const store = new EventStore(ctx.db, ctx.sql);
  if (topic === 'marketplace.review') {
    if (typeof p.reviewId !== 'string' || typeof p.agentId !== 'string') return;
    if (p.action === 'deleted') await store.forget(tenantId, `review:${p.reviewId}`);
    else if (Number.isInteger(p.rating)) await store.record(tenantId, event(p.agentId, 'review', 'marketplace', `review:${p.reviewId}`, { reviewId: p.reviewId, listingId: p.listingId ?? null, rating: p.rating }, p.rating - 3));
    return;
  }
  const inputs = topic === COUNCILS_EVENTS.outcome ? await councilEvents(ctx, tenantId, p)
    : [topic === SESSION_TOPICS.lifecycle ? sessionEvent(p) : topic === WORK_TASKS_EVENTS.outcome ? workTaskEvent(p) : topic === 'marketplace.use' ? useEvent(p) : undefined];
  for (const input of inputs) if (input) await store.record(tenantId, input);
};
