// What a tenant's plan and its bill count from the ledger: credits put into its wallets this calendar
// month (funding and grants, not a new wallet's initial grant: the plan's creditsPerMonth), and credits spent on turns over a period
// (the metered usage billing reports).
import type { Knex } from 'knex';
import { num, safeSum } from './amounts.js';
import type { Wallet } from './ledger.js';
import { PlansClient } from '../plans/contract.js';
import type { HostClient } from '../../sdk/host-client.js';

const MICRO = 1_000_000;

export function monthStart(now = new Date()): string {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString();
}

export async function addedThisMonth(db: Knex, tenantId: string): Promise<number> {
  // A new wallet's initial grant comes with its agent, which the plan's agent limit already counts.
  const row = await db('credit_transactions').where({ tenant_id: tenantId }).whereIn('kind', ['fund', 'grant']).whereNot('reference', 'initial-grant').andWhere('created_at', '>=', monthStart())
    .sum<{ total: number | string | null }[]>({ total: 'micro_units' }).first();
  return num(row?.total);
}

/**
 * 403 PLAN_LIMIT when adding `microUnits` to `wallet` would put more credits into the tenant's wallets this
 * month than its plan allows. An amount the balance cannot take is the caller's 400 first (the ledger
 * checks it again under its lock).
 */
export async function requireMonthlyRoom(host: HostClient, db: Knex, tenantId: string, wallet: Pick<Wallet, 'address' | 'balance'>, microUnits: number): Promise<void> {
  safeSum(wallet.balance, microUnits, `the balance of wallet ${wallet.address}`);
  await new PlansClient(host).requireWithin(tenantId, 'creditsPerMonth', (await addedThisMonth(db, tenantId)) / MICRO, { tenantId }, microUnits / MICRO);
}

export interface Usage {
  from: string;
  to: string;
  spentMicroUnits: number;
  days: Array<{ date: string; microUnits: number }>;
}

/** Credits spent on turns in [from, to), by UTC day. */
export async function spentBetween(db: Knex, tenantId: string, from: string, to: string): Promise<Usage> {
  const rows = await db('credit_transactions').where({ tenant_id: tenantId, kind: 'spend' }).andWhere('created_at', '>=', from).andWhere('created_at', '<', to)
    .select('created_at', 'micro_units').orderBy('created_at');
  const byDay = new Map<string, number>();
  for (const row of rows) {
    const date = String(row.created_at).slice(0, 10);
    byDay.set(date, (byDay.get(date) ?? 0) - num(row.micro_units));
  }
  const days = [...byDay].map(([date, microUnits]) => ({ date, microUnits }));
  return { from, to, spentMicroUnits: days.reduce((sum, d) => sum + d.microUnits, 0), days };
}
