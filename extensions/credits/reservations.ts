// Reservations around an agent's turn: reserve (a hold: the amount leaves the balance at once, so
// concurrent turns cannot overspend), then commit the actual cost or release the hold. Holds that are
// never settled expire and are released. Ledger entries: reserve −R; on commit, commit +R and spend −A;
// on release or expiry, release +R.
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { conflict, notFound, RoostError } from '../../protocol/errors.js';
import { num } from './amounts.js';
import type { Reservation } from './contract.js';
import { costOf, priceFor, type CreditConfig } from './config.js';
import { lockedWallet, post, type BalanceChange, type Entry, type Wallet } from './ledger.js';
import { Spending } from './spending.js';

export interface ReserveRequest {
  sessionId: string;
  microUnits: number;
  provider: string | null;
  model: string | null;
  ttlSeconds: number;
}

export interface Usage {
  microUnits?: number;
  inputTokens?: number;
  outputTokens?: number;
  provider?: string;
  model?: string;
}

type Outcome = { reservation: Reservation; change?: BalanceChange };

export class Reservations {
  constructor(private readonly db: Knex) {}

  /** Holds `microUnits` for a turn, or refuses with 409 INSUFFICIENT_CREDITS / DAILY_CAP_REACHED. */
  async reserve(tenantId: string, wallet: Wallet, request: ReserveRequest, enforced: boolean): Promise<Outcome> {
    return this.db.transaction(async (trx) => {
      const amount = enforced ? request.microUnits : 0;
      const row = await lockedWallet(trx, tenantId, wallet.address);
      if (enforced) await checkAffordable(trx, tenantId, wallet, num(row.balance), amount);
      const now = new Date();
      const record = {
        id: randomUUID(), tenant_id: tenantId, wallet: wallet.address, agent_id: wallet.agentId, session_id: request.sessionId, micro_units: amount,
        state: 'held', provider: request.provider, model: request.model, actual_micro_units: null, input_tokens: null, output_tokens: null,
        created_at: now.toISOString(), expires_at: new Date(now.getTime() + request.ttlSeconds * 1000).toISOString(), settled_at: null,
      };
      await trx('reservations').insert(record);
      if (amount === 0) return { reservation: toReservation(record) };
      const { balance } = await post(trx, tenantId, wallet.address, [{ kind: 'reserve', microUnits: -amount, reference: record.id, reason: `turn of session ${request.sessionId}`, actor: 'credits' }]);
      return { reservation: toReservation(record), change: { tenantId, agentId: wallet.agentId, wallet: wallet.address, balance } };
    });
  }

  /** Records the turn's actual cost (given, or priced from its tokens) and returns the rest of the hold. */
  async commit(tenantId: string, id: string, usage: Usage, config: CreditConfig): Promise<Outcome> {
    return this.db.transaction(async (trx) => {
      const row = await locked(trx, tenantId, id);
      if (row.state !== 'held' && row.state !== 'expired') throw conflict(`reservation ${id} is already ${row.state}`);
      const inputTokens = usage.inputTokens ?? 0;
      const outputTokens = usage.outputTokens ?? 0;
      const price = priceFor(config, usage.provider ?? row.provider, usage.model ?? row.model);
      const actual = config.enabled ? (usage.microUnits ?? costOf(price, inputTokens, outputTokens)) : 0;
      const entries: Entry[] = [];
      if (row.state === 'held' && num(row.micro_units) > 0) entries.push({ kind: 'commit', microUnits: num(row.micro_units), reference: id, reason: 'hold closed', actor: 'credits' });
      if (actual > 0) entries.push({ kind: 'spend', microUnits: -actual, reference: id, reason: `session ${row.session_id}: ${inputTokens} input and ${outputTokens} output tokens${usage.model ?? row.model ? ` of ${usage.model ?? row.model}` : ''}`, actor: 'credits' });
      const patch = { state: 'committed', actual_micro_units: actual, input_tokens: inputTokens, output_tokens: outputTokens, model: usage.model ?? row.model, provider: usage.provider ?? row.provider, settled_at: new Date().toISOString() };
      await trx('reservations').where({ id }).update(patch);
      if (actual > 0) await Spending.add(trx, { tenantId, agentId: row.agent_id, wallet: row.wallet, amount: actual });
      const reservation = toReservation({ ...row, ...patch });
      if (entries.length === 0) return { reservation };
      const { balance } = await post(trx, tenantId, row.wallet, entries);
      return { reservation, change: { tenantId, agentId: row.agent_id, wallet: row.wallet, balance } };
    });
  }

  /**
   * Hands a hold made ahead of a turn to the session that answers it: the hold must be this tenant's,
   * still held, for this agent, and unclaimed (a session claiming it again changes nothing).
   */
  async claim(tenantId: string, id: string, claim: { sessionId: string; agentId: string }): Promise<Reservation> {
    return this.db.transaction(async (trx) => {
      const row = await locked(trx, tenantId, id);
      if (row.claimed_at && row.session_id === claim.sessionId) return toReservation(row);
      if (row.claimed_at) throw conflict(`reservation ${id} was already claimed by session ${row.session_id}`);
      if (row.state !== 'held') throw conflict(`reservation ${id} is ${row.state}, not held`);
      if (row.agent_id !== claim.agentId) throw conflict(`reservation ${id} was made for agent ${row.agent_id}, not ${claim.agentId}`);
      const patch = { session_id: claim.sessionId, claimed_at: new Date().toISOString() };
      await trx('reservations').where({ id }).update(patch);
      return toReservation({ ...row, ...patch });
    });
  }

  /** Returns the whole hold. Releasing a released or expired reservation changes nothing. */
  async release(tenantId: string, id: string, why = 'released by the session'): Promise<Outcome> {
    return this.db.transaction(async (trx) => {
      const row = await locked(trx, tenantId, id);
      if (row.state === 'committed') throw conflict(`reservation ${id} is already committed`);
      if (row.state !== 'held') return { reservation: toReservation(row) };
      return settleHold(trx, tenantId, row, 'released', why);
    });
  }

  /** Releases every hold past its expiry (of one wallet, or all); returns the balance changes. */
  async expire(scope: { tenantId: string; wallet: string } | null = null): Promise<BalanceChange[]> {
    const due = this.db('reservations').where({ state: 'held' }).andWhere('expires_at', '<=', new Date().toISOString());
    if (scope) due.andWhere({ tenant_id: scope.tenantId, wallet: scope.wallet });
    const changes: BalanceChange[] = [];
    for (const { id, tenant_id } of await due.select('id', 'tenant_id')) {
      const outcome = await this.db.transaction(async (trx) => {
        const row = await locked(trx, tenant_id, id);
        return row.state === 'held' ? settleHold(trx, tenant_id, row, 'expired', 'reservation expired unsettled') : undefined;
      });
      if (outcome?.change) changes.push(outcome.change);
    }
    return changes;
  }

  static async heldByWallet(db: Knex, tenantId: string, wallets: string[]): Promise<Map<string, number>> {
    if (wallets.length === 0) return new Map();
    const rows = await db('reservations').where({ tenant_id: tenantId, state: 'held' }).whereIn('wallet', wallets).groupBy('wallet').select('wallet').sum({ total: 'micro_units' });
    return new Map(rows.map((r: Record<string, unknown>) => [String(r.wallet), num(r.total)]));
  }

  static async heldTotal(db: Knex, tenantId: string, wallet: string): Promise<number> {
    const [{ total }] = await db('reservations').where({ tenant_id: tenantId, wallet, state: 'held' }).sum({ total: 'micro_units' });
    return num(total);
  }
}

async function checkAffordable(trx: Knex.Transaction, tenantId: string, wallet: Wallet, balance: number, amount: number): Promise<void> {
  if (balance < amount) {
    throw new RoostError('INSUFFICIENT_CREDITS', `wallet ${wallet.address} has ${balance} microUnits available and this turn needs a reservation of ${amount}; fund the agent (POST /api/agents/${wallet.agentId}/fund) or grant credits to the wallet`, { status: 409, details: { available: balance, required: amount } });
  }
  const cap = await Spending.cap(trx, tenantId, wallet.agentId);
  if (cap === null) return;
  const spent = await Spending.today(trx, tenantId, wallet.address);
  const held = await Reservations.heldTotal(trx, tenantId, wallet.address);
  if (spent + held + amount > cap) {
    throw new RoostError('DAILY_CAP_REACHED', `agent ${wallet.agentId} has a daily cap of ${cap} microUnits; ${spent} spent today and ${held} held leave too little for a reservation of ${amount}`, { status: 409, details: { dailyLimit: cap, spentToday: spent, held, required: amount } });
  }
}

async function settleHold(trx: Knex.Transaction, tenantId: string, row: Record<string, any>, state: 'released' | 'expired', why: string): Promise<Outcome> {
  const patch = { state, settled_at: new Date().toISOString() };
  await trx('reservations').where({ id: row.id }).update(patch);
  const reservation = toReservation({ ...row, ...patch });
  if (num(row.micro_units) === 0) return { reservation };
  const { balance } = await post(trx, tenantId, row.wallet, [{ kind: 'release', microUnits: num(row.micro_units), reference: row.id, reason: why, actor: 'credits' }]);
  return { reservation, change: { tenantId, agentId: row.agent_id, wallet: row.wallet, balance } };
}

async function locked(trx: Knex.Transaction, tenantId: string, id: string): Promise<Record<string, any>> {
  const query = trx('reservations').where({ tenant_id: tenantId, id });
  if (trx.client.config.client === 'pg') query.forUpdate();
  const row = await query.first();
  if (!row) throw notFound(`reservation ${id}`);
  return row;
}

function toReservation(row: Record<string, any>): Reservation {
  return {
    id: row.id, agentId: row.agent_id, wallet: row.wallet, sessionId: row.session_id, microUnits: num(row.micro_units), state: row.state,
    provider: row.provider ?? null, model: row.model ?? null,
    actualMicroUnits: row.actual_micro_units === null || row.actual_micro_units === undefined ? null : num(row.actual_micro_units),
    inputTokens: row.input_tokens ?? null, outputTokens: row.output_tokens ?? null,
    createdAt: row.created_at, expiresAt: row.expires_at, settledAt: row.settled_at ?? null,
  };
}
