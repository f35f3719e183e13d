// Keeping the statistics from bus events: the latest state of each session, spending per day and agent.
import type { Knex } from 'knex';
import { CREDITS_EVENTS } from '../credits/contract.js';
import { SESSION_TOPICS } from '../sessions/contract.js';

type Payload = Record<string, any>;

export async function record(db: Knex, topic: string, tenantId: string, payload: Payload): Promise<void> {
  if (topic === SESSION_TOPICS.lifecycle && payload.session && typeof payload.session.id === 'string') {
    const s = payload.session;
    await db('sessions')
      .insert({
        id: s.id,
        tenant_id: tenantId,
        agent_id: s.agentId ?? null,
        project_id: s.projectId ?? null,
        source: s.source ?? 'web',
        status: s.status,
        cost: Number.isSafeInteger(s.cost) ? s.cost : 0,
        created_at: s.createdAt ?? new Date().toISOString(),
        updated_at: new Date().toISOString(),
      })
      .onConflict('id')
      .merge(['status', 'cost', 'updated_at', 'agent_id', 'project_id', 'source']);
    return;
  }
  if (topic === CREDITS_EVENTS.spent && Number.isSafeInteger(payload.microUnits) && payload.microUnits > 0) {
    const date = typeof payload.date === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(payload.date) ? payload.date : new Date().toISOString().slice(0, 10);
    await db('daily_spending')
      .insert({ tenant_id: tenantId, date, agent_id: String(payload.agentId ?? ''), total: payload.microUnits })
      .onConflict(['tenant_id', 'date', 'agent_id'])
      .merge({ total: db.raw('daily_spending.total + ?', [payload.microUnits]) });
  }
}
