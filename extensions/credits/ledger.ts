// The credit ledger: one wallet per agent and an append-only list of transactions. A wallet's balance
// is the sum of its transactions; every append updates the cached balance in the same database
// transaction, under a row lock on PostgreSQL (SQLite serialises writers anyway).
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { notFound } from '../../protocol/errors.js';
import { num, safeSum } from './amounts.js';
import { containing, likeClause, paged, type PageRequest } from '../../sdk/db.js';
import type { SqlReader, SqlValue } from '../../sdk/sql.js';

export type Kind = 'grant' | 'fund' | 'reward' | 'reserve' | 'release' | 'commit' | 'spend' | 'escrow_hold' | 'escrow_release' | 'escrow_refund';

export interface Wallet {
  address: string;
  agentId: string;
  agentName: string;
  balance: number;
  createdAt: string;
  agentDeleted: boolean;
}

export interface Entry {
  kind: Kind;
  /** Signed: credits are positive, debits negative. */
  microUnits: number;
  reference?: string;
  reason?: string;
  actor: string;
}

export interface Transaction {
  id: string;
  wallet: string;
  kind: Kind;
  microUnits: number;
  balanceAfter: number;
  reference: string;
  reason: string;
  actor: string;
  createdAt: string;
}

/** A wallet to open for a new agent, with the tenant's initial grant. */
export interface NewWallet {
  tenantId: string;
  agent: { id: string; name: string; wallet: string };
  grant: number;
}

/** What changed, so the caller can announce it (agent_balance). */
export interface BalanceChange {
  tenantId: string;
  agentId: string;
  wallet: string;
  balance: number;
}

export async function lockedWallet(trx: Knex.Transaction, tenantId: string, address: string): Promise<Record<string, any>> {
  const query = trx('wallets').where({ tenant_id: tenantId, address });
  if (trx.client.config.client === 'pg') query.forUpdate();
  const row = await query.first();
  if (!row) throw notFound(`wallet ${address}`);
  return row;
}

/** Appends entries to one wallet inside `trx` and returns the new balance. */
export async function post(trx: Knex.Transaction, tenantId: string, address: string, entries: Entry[]): Promise<{ balance: number; transactions: Transaction[] }> {
  const row = await lockedWallet(trx, tenantId, address);
  let balance = num(row.balance);
  const now = new Date().toISOString();
  const transactions: Transaction[] = [];
  for (const e of entries) {
    balance = safeSum(balance, e.microUnits, `the balance of wallet ${address}`);
    const tx: Transaction = { id: randomUUID(), wallet: address, kind: e.kind, microUnits: e.microUnits, balanceAfter: balance, reference: e.reference ?? '', reason: e.reason ?? '', actor: e.actor, createdAt: now };
    transactions.push(tx);
    await trx('credit_transactions').insert({
      id: tx.id, tenant_id: tenantId, wallet: address, kind: tx.kind, micro_units: tx.microUnits, balance_after: tx.balanceAfter,
      reference: tx.reference, reason: tx.reason, actor: tx.actor, created_at: now,
    });
  }
  await trx('wallets').where({ tenant_id: tenantId, address }).update({ balance, updated_at: now });
  return { balance, transactions };
}

export class Ledger {
  constructor(
    private readonly db: Knex,
    private readonly sql: SqlReader,
  ) {}

  async wallet(tenantId: string, address: string): Promise<Wallet | undefined> {
    const row = await this.db('wallets').where({ tenant_id: tenantId, address }).first();
    return row && toWallet(row);
  }

  async walletOfAgent(tenantId: string, agentId: string): Promise<Wallet | undefined> {
    const row = await this.db('wallets').where({ tenant_id: tenantId, agent_id: agentId }).first();
    return row && toWallet(row);
  }

  /**
   * Creates the wallet on first sight, with the tenant's initial grant (asked only then); idempotent.
   * A wallet opened at the same time elsewhere makes the insert fail, and is then found below.
   */
  async ensure(tenantId: string, agent: { id: string; name: string; wallet: string }, initialGrant: () => Promise<number>): Promise<{ wallet: Wallet; change?: BalanceChange }> {
    const existing = await this.wallet(tenantId, agent.wallet);
    if (existing) {
      if (existing.agentName !== agent.name) await this.rename(tenantId, agent.id, agent.name);
      return { wallet: { ...existing, agentName: agent.name } };
    }
    const grant = await initialGrant();
    try {
      const [change] = await this.openNew([{ tenantId, agent, grant }]);
      return { wallet: { address: agent.wallet, agentId: agent.id, agentName: agent.name, balance: change!.balance, createdAt: change!.createdAt, agentDeleted: false }, change: change! };
    } catch (err) {
      const raced = await this.wallet(tenantId, agent.wallet);
      if (raced) return { wallet: raced };
      throw err;
    }
  }

  /**
   * Writes new wallets in one transaction, each with its grant as its balance and the grant as its only
   * entry (so there is no row to lock and read back, nor a balance to update after): one insert for the wallets and one for the grants, whatever their number. Fails whole if any
   * wallet exists already.
   */
  async openNew(wallets: NewWallet[]): Promise<Array<BalanceChange & { createdAt: string }>> {
    const now = new Date().toISOString();
    const opened = wallets.map(({ tenantId, agent, grant }) => ({ tenantId, agent, grant: Math.max(0, grant), balance: safeSum(0, Math.max(0, grant), `the balance of wallet ${agent.wallet}`) }));
    await this.db.transaction(async (trx) => {
      await trx('wallets').insert(opened.map(({ tenantId, agent, balance }) => ({ address: agent.wallet, tenant_id: tenantId, agent_id: agent.id, agent_name: agent.name, balance, created_at: now, updated_at: now })));
      const grants = opened.filter(({ grant }) => grant > 0).map(({ tenantId, agent, grant, balance }) => ({
        id: randomUUID(), tenant_id: tenantId, wallet: agent.wallet, kind: 'grant', micro_units: grant, balance_after: balance,
        reference: 'initial-grant', reason: 'initial grant for a new wallet', actor: 'credits', created_at: now,
      }));
      if (grants.length > 0) await trx('credit_transactions').insert(grants);
    });
    return opened.map(({ tenantId, agent, balance }) => ({ tenantId, agentId: agent.id, wallet: agent.wallet, balance, createdAt: now }));
  }

  async credit(tenantId: string, address: string, entry: Entry): Promise<{ balance: number; transaction: Transaction }> {
    const { balance, transactions } = await this.db.transaction((trx) => post(trx, tenantId, address, [entry]));
    return { balance, transaction: transactions[0]! };
  }

  async rename(tenantId: string, agentId: string, name: string): Promise<void> {
    await this.db('wallets').where({ tenant_id: tenantId, agent_id: agentId }).update({ agent_name: name });
  }

  async markAgentDeleted(tenantId: string, agentId: string): Promise<void> {
    await this.db('wallets').where({ tenant_id: tenantId, agent_id: agentId }).update({ agent_deleted_at: new Date().toISOString() });
  }

  async transactions(tenantId: string, address: string, page: PageRequest): Promise<{ messages: Transaction[]; total?: number; hasMore: boolean }> {
    const query = { from: 'credit_transactions WHERE tenant_id = ? AND wallet = ?', params: [tenantId, address], orderBy: 'seq DESC' };
    const { rows, total, hasMore } = await paged<Record<string, any>>(this.sql, query, page);
    return { messages: rows.map(toTransaction), ...(total === undefined ? {} : { total }), hasMore };
  }

  async list(tenantId: string, page: PageRequest & { search?: string }): Promise<{ wallets: Wallet[]; total?: number; hasMore: boolean }> {
    let from = 'wallets WHERE tenant_id = ?';
    const params: SqlValue[] = [tenantId];
    if (page.search) {
      const like = containing(page.search);
      from += ` AND (${likeClause(this.sql.dialect, 'address')} OR ${likeClause(this.sql.dialect, 'agent_name')})`;
      params.push(like, like);
    }
    const { rows, total, hasMore } = await paged<Record<string, any>>(this.sql, { from, params, orderBy: 'created_at, address' }, page);
    return { wallets: rows.map(toWallet), ...(total === undefined ? {} : { total }), hasMore };
  }
}

function toWallet(row: Record<string, any>): Wallet {
  return { address: row.address, agentId: row.agent_id, agentName: row.agent_name, balance: num(row.balance), createdAt: row.created_at, agentDeleted: row.agent_deleted_at !== null && row.agent_deleted_at !== undefined };
}

function toTransaction(row: Record<string, any>): Transaction {
  return {
    id: row.id, wallet: row.wallet, kind: row.kind, microUnits: num(row.micro_units), balanceAfter: num(row.balance_after),
    reference: row.reference, reason: row.reason, actor: row.actor, createdAt: row.created_at,
  };
}
