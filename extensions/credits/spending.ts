// Daily spending per wallet (UTC days) and the optional daily cap of each agent.
import type { Knex } from 'knex';
import { num, todayUtc } from './amounts.js';

export interface DailyTotal {
  date: string;
  total: number;
}

export class Spending {
  constructor(private readonly db: Knex) {}

  /** Adds to today's total, inside the transaction that records the spend. */
  static async add(trx: Knex.Transaction, row: { tenantId: string; agentId: string; wallet: string; amount: number }): Promise<void> {
    const date = todayUtc();
    await trx('daily_spending')
      .insert({ wallet: row.wallet, date, tenant_id: row.tenantId, agent_id: row.agentId, total: row.amount })
      .onConflict(['wallet', 'date'])
      .merge({ total: trx.raw('daily_spending.total + ?', [row.amount]) });
  }

  static async today(db: Knex, tenantId: string, wallet: string): Promise<number> {
    const row = await db('daily_spending').where({ tenant_id: tenantId, wallet, date: todayUtc() }).first();
    return num(row?.total);
  }

  static async todayByWallet(db: Knex, tenantId: string, wallets: string[]): Promise<Map<string, number>> {
    if (wallets.length === 0) return new Map();
    const rows = await db('daily_spending').where({ tenant_id: tenantId, date: todayUtc() }).whereIn('wallet', wallets).select('wallet', 'total');
    return new Map(rows.map((r: Record<string, unknown>) => [String(r.wallet), num(r.total)]));
  }

  /** The last `days` days that saw spending, newest first. */
  async daily(tenantId: string, wallet: string, days: number): Promise<DailyTotal[]> {
    const since = todayUtc(new Date(Date.now() - (days - 1) * 86_400_000));
    const rows = await this.db('daily_spending').where({ tenant_id: tenantId, wallet }).andWhere('date', '>=', since).orderBy('date', 'desc');
    return rows.map((r: Record<string, unknown>) => ({ date: String(r.date), total: num(r.total) }));
  }

  static async cap(db: Knex, tenantId: string, agentId: string): Promise<number | null> {
    const row = await db('spending_caps').where({ tenant_id: tenantId, agent_id: agentId }).first();
    return row ? num(row.daily_limit) : null;
  }

  async setCap(tenantId: string, agentId: string, dailyLimit: number): Promise<{ dailyLimit: number; updatedAt: string }> {
    const updatedAt = new Date().toISOString();
    await this.db('spending_caps').insert({ tenant_id: tenantId, agent_id: agentId, daily_limit: dailyLimit, updated_at: updatedAt }).onConflict(['tenant_id', 'agent_id']).merge();
    return { dailyLimit, updatedAt };
  }

  async removeCap(tenantId: string, agentId: string): Promise<boolean> {
    return (await this.db('spending_caps').where({ tenant_id: tenantId, agent_id: agentId }).delete()) > 0;
  }
}
