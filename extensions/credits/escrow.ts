// Escrow between two wallets, for marketplace uses: hold takes the amount from the payer's balance at
// once (entry escrow_hold −A), then release pays it to the payee (escrow_release +A, possibly in another
// tenant) or refund returns it to the payer (escrow_refund +A). Settling twice is refused; the sum of
// every wallet's transactions plus what is held always equals what was granted and funded.
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { conflict, notFound, RoostError } from '../../protocol/errors.js';
import { num } from './amounts.js';
import { lockedWallet, post, type BalanceChange, type Wallet } from './ledger.js';

export type EscrowState = 'held' | 'released' | 'refunded';

export interface Escrow {
  id: string;
  payerWallet: string;
  payerAgentId: string;
  payeeWallet: string;
  payeeAgentId: string;
  microUnits: number;
  state: EscrowState;
  reference: string;
  reason: string;
  createdAt: string;
  settledAt: string | null;
}

type Outcome = { escrow: Escrow; change: BalanceChange };

export class Escrows {
  constructor(private readonly db: Knex) {}

  async hold(tenantId: string, payer: Wallet, payee: { tenantId: string; wallet: Wallet }, microUnits: number, reference: string, reason: string): Promise<Outcome> {
    if (payer.address === payee.wallet.address) throw conflict('the payer and the payee of an escrow must be different wallets');
    return this.db.transaction(async (trx) => {
      const row = await lockedWallet(trx, tenantId, payer.address);
      const balance = num(row.balance);
      if (balance < microUnits) {
        throw new RoostError('INSUFFICIENT_CREDITS', `wallet ${payer.address} has ${balance} microUnits and this use costs ${microUnits}; fund the agent (POST /api/agents/${payer.agentId}/fund)`, { status: 409, details: { available: balance, required: microUnits } });
      }
      const record = {
        id: randomUUID(), tenant_id: tenantId, payer_wallet: payer.address, payer_agent_id: payer.agentId, payee_tenant_id: payee.tenantId,
        payee_wallet: payee.wallet.address, payee_agent_id: payee.wallet.agentId, micro_units: microUnits, state: 'held', reference, reason,
        created_at: new Date().toISOString(), settled_at: null,
      };
      await trx('escrows').insert(record);
      const posted = await post(trx, tenantId, payer.address, [{ kind: 'escrow_hold', microUnits: -microUnits, reference: record.id, reason: `held: ${reason}`, actor: 'credits' }]);
      return { escrow: toEscrow(record), change: { tenantId, agentId: payer.agentId, wallet: payer.address, balance: posted.balance } };
    });
  }

  /** Pays the held amount to the payee. */
  release(tenantId: string, id: string): Promise<Outcome> {
    return this.settle(tenantId, id, 'released');
  }

  /** Returns the held amount to the payer. */
  refund(tenantId: string, id: string): Promise<Outcome> {
    return this.settle(tenantId, id, 'refunded');
  }

  async get(tenantId: string, id: string): Promise<Escrow> {
    const row = await this.db('escrows').where({ tenant_id: tenantId, id }).first();
    if (!row) throw notFound(`escrow ${id}`);
    return toEscrow(row);
  }

  private async settle(tenantId: string, id: string, state: 'released' | 'refunded'): Promise<Outcome> {
    return this.db.transaction(async (trx) => {
      const query = trx('escrows').where({ tenant_id: tenantId, id });
      if (trx.client.config.client === 'pg') query.forUpdate();
      const row = await query.first();
      if (!row) throw notFound(`escrow ${id}`);
      if (row.state !== 'held') throw conflict(`escrow ${id} is already ${row.state}`);
      const patch = { state, settled_at: new Date().toISOString() };
      await trx('escrows').where({ id }).update(patch);
      const amount = num(row.micro_units);
      const [walletTenant, wallet, agentId] = state === 'released' ? [row.payee_tenant_id, row.payee_wallet, row.payee_agent_id] : [tenantId, row.payer_wallet, row.payer_agent_id];
      const kind = state === 'released' ? 'escrow_release' : 'escrow_refund';
      const posted = await post(trx, walletTenant, wallet, [{ kind, microUnits: amount, reference: id, reason: `${state}: ${row.reason}`, actor: 'credits' }]);
      return { escrow: toEscrow({ ...row, ...patch }), change: { tenantId: walletTenant, agentId, wallet, balance: posted.balance } };
    });
  }
}

function toEscrow(row: Record<string, any>): Escrow {
  return {
    id: row.id, payerWallet: row.payer_wallet, payerAgentId: row.payer_agent_id, payeeWallet: row.payee_wallet, payeeAgentId: row.payee_agent_id,
    microUnits: num(row.micro_units), state: row.state, reference: row.reference, reason: row.reason, createdAt: row.created_at, settledAt: row.settled_at ?? null,
  };
}
