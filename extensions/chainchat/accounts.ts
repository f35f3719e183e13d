// A tenant's chainchat account: an Algorand account made on first use (its mnemonic sealed with the
// extension's key, bound to the tenant), the network it talks on, and the last round read from it.
import algosdk from 'algosdk';
import type { Knex } from 'knex';
import type { KeyObject } from 'node:crypto';
import type { Sealer } from '../../sdk/sealed.js';
import type { Network } from './config.js';
import { accountX25519, agentMessageKey, memoryKey } from './keys.js';

export interface Account {
  tenantId: string;
  address: string;
  network: Network;
  lastRound: number;
  signer: algosdk.Account;
  x25519: { privateKey: KeyObject; publicKey: Buffer };
  memoryKey: Buffer;
  agentMessageKey: Buffer;
}

interface Row {
  tenant_id: string;
  address: string;
  mnemonic_enc: string;
  network: string;
  last_round: number | string;
}

const context = (tenantId: string) => `chainchat account\0${tenantId}`;

export class Accounts {
  private readonly cache = new Map<string, Account>();

  constructor(private readonly db: Knex, private readonly sealer: Sealer, private readonly defaultNetwork: Network) {}

  /**
   * The tenant's account, or undefined before its chainchat is set up. Reads never make one: an account
   * is what the poller reads the chain for, so viewing a page must not start that.
   */
  async find(tenantId: string): Promise<Account | undefined> {
    const row = await this.db<Row>('cc_accounts').where({ tenant_id: tenantId }).first();
    return row ? this.toAccount(row) : undefined;
  }

  /** The tenant's account, made (and stored) the first time an action that needs one asks for it. */
  async of(tenantId: string): Promise<Account> {
    const found = await this.find(tenantId);
    if (found) return found;
    const made = algosdk.generateAccount();
    const now = new Date().toISOString();
    await this.db('cc_accounts')
      .insert({ tenant_id: tenantId, address: made.addr.toString(), mnemonic_enc: this.sealer.seal(algosdk.secretKeyToMnemonic(made.sk), context(tenantId)), network: this.defaultNetwork, last_round: 0, created_at: now, updated_at: now })
      .onConflict('tenant_id').ignore();
    return this.toAccount((await this.db<Row>('cc_accounts').where({ tenant_id: tenantId }).first())!);
  }

  /** Every tenant that has an account (the poller reads for each). */
  async tenants(): Promise<string[]> {
    return (await this.db('cc_accounts').select('tenant_id')).map((r: { tenant_id: string }) => r.tenant_id);
  }

  async setNetwork(tenantId: string, network: Network): Promise<void> {
    // Rounds of one network mean nothing on the other: start reading the new one from its present.
    await this.db('cc_accounts').where({ tenant_id: tenantId }).update({ network, last_round: 0, updated_at: new Date().toISOString() });
  }

  async setLastRound(tenantId: string, round: number): Promise<void> {
    await this.db('cc_accounts').where({ tenant_id: tenantId }).where('last_round', '<', round).update({ last_round: round });
  }

  private toAccount(row: Row): Account {
    const cached = this.cache.get(row.tenant_id);
    const network = row.network as Network;
    const lastRound = Number(row.last_round);
    if (cached && cached.address === row.address) return { ...cached, network, lastRound };
    const signer = algosdk.mnemonicToSecretKey(this.sealer.open(row.mnemonic_enc, context(row.tenant_id)));
    const account = { tenantId: row.tenant_id, address: row.address, network, lastRound, signer, x25519: accountX25519(signer.sk), memoryKey: memoryKey(signer.sk), agentMessageKey: agentMessageKey(signer.sk) };
    this.cache.set(row.tenant_id, account);
    return account;
  }
}
