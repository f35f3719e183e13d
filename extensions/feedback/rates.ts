// Outcome rates over a window of time, for one tenant: how sessions ended, how approvals went, how far
// councils agreed, how many work tasks merged. A rate with nothing to count is null, not 0.
import type { Knex } from 'knex';

export interface Rates {
  from: string;
  to: string;
  sessions: { completed: number; failed: number; successRate: number | null };
  approvals: { allowed: number; denied: number; deniedRate: number | null };
  councils: { concluded: number; meanAgreement: number | null };
  workTasks: { merged: number; failed: number; mergeRate: number | null };
}

const ratio = (part: number, whole: number) => (whole > 0 ? Math.round((part / whole) * 1000) / 1000 : null);

export async function ratesBetween(db: Knex, tenantId: string, from: Date, to: Date): Promise<Rates> {
  const rows: Array<{ kind: string; n: number | string; good: number | string | null }> = await db('outcomes')
    .where({ tenant_id: tenantId })
    .andWhere('at', '>=', from.toISOString())
    .andWhere('at', '<', to.toISOString())
    .select('kind')
    .count({ n: '*' })
    .sum({ good: 'value' })
    .groupBy('kind');
  const of = (kind: string) => {
    const row = rows.find((r) => r.kind === kind);
    return { n: Number(row?.n ?? 0), good: Number(row?.good ?? 0) };
  };
  const sessions = of('session');
  const approvals = of('approval');
  const councils = of('council');
  const tasks = of('work_task');
  return {
    from: from.toISOString(),
    to: to.toISOString(),
    sessions: { completed: sessions.good, failed: sessions.n - sessions.good, successRate: ratio(sessions.good, sessions.n) },
    approvals: { allowed: approvals.good, denied: approvals.n - approvals.good, deniedRate: ratio(approvals.n - approvals.good, approvals.n) },
    councils: { concluded: councils.n, meanAgreement: ratio(councils.good, councils.n) },
    workTasks: { merged: tasks.good, failed: tasks.n - tasks.good, mergeRate: ratio(tasks.good, tasks.n) },
  };
}

/** The agents whose sessions failed most in the window, and the tools denied most. */
export async function hotSpots(db: Knex, tenantId: string, from: Date, to: Date) {
  const window = (q: Knex.QueryBuilder) => q.where({ tenant_id: tenantId }).andWhere('at', '>=', from.toISOString()).andWhere('at', '<', to.toISOString());
  const failingAgents: Array<{ agent_id: string; failed: number | string; total: number | string }> = await window(db('outcomes'))
    .andWhere({ kind: 'session' }).whereNotNull('agent_id')
    .select('agent_id').count({ total: '*' }).sum({ failed: db.raw('1 - value') })
    .groupBy('agent_id').orderBy('failed', 'desc').limit(5);
  const deniedTools: Array<{ label: string; denied: number | string }> = await window(db('outcomes'))
    .andWhere({ kind: 'approval', value: 0 })
    .select('label').count({ denied: '*' }).groupBy('label').orderBy('denied', 'desc').limit(5);
  return {
    failingAgents: failingAgents.filter((a) => Number(a.failed) > 0).map((a) => ({ agentId: a.agent_id, failed: Number(a.failed), sessions: Number(a.total) })),
    deniedTools: deniedTools.map((t) => ({ tool: t.label.split(':')[0]!, by: t.label.split(':')[1] || null, denied: Number(t.denied) })),
  };
}
