// The chain through the official algosdk: an Algodv2 client to submit and confirm transactions and read
// balances, an Indexer client to read transactions back. One Chain per network.
import algosdk from 'algosdk';
import { RoostError } from '../../protocol/errors.js';
import type { ChainchatConfig, Network } from './config.js';

export interface ChainTxn {
  id: string;
  round: number;
  sender: string;
  receiver: string;
  amount: bigint;
  note: Uint8Array;
}

const CONFIRM_ROUNDS = 8;
const PAGE = 200;

export class Chain {
  readonly algod: algosdk.Algodv2;
  readonly indexer: algosdk.Indexer;

  constructor(config: ChainchatConfig, readonly network: Network) {
    // The port is given from the URL itself: the SDK's defaults (4001, 8080) would replace it.
    const algod = new URL(config.algod[network]);
    const indexer = new URL(config.indexer[network]);
    this.algod = new algosdk.Algodv2(config.algodToken, config.algod[network], algod.port);
    this.indexer = new algosdk.Indexer(config.indexerToken, config.indexer[network], indexer.port);
  }

  async lastRound(): Promise<number> {
    return Number((await upstream('algod status', () => this.algod.status().do())).lastRound);
  }

  async genesisId(): Promise<string> {
    return (await upstream('algod versions', () => this.algod.versionsCheck().do())).genesisId;
  }

  async balance(address: string): Promise<bigint> {
    return (await upstream('algod account', () => this.algod.accountInformation(address).do())).amount;
  }

  /** Sends each note in a payment of `amount` (0 by default) to `receiver`, in order; answers the txids once confirmed. */
  async send(account: algosdk.Account, receiver: string, notes: Uint8Array[], amount = 0): Promise<string[]> {
    const suggestedParams = await upstream('algod params', () => this.algod.getTransactionParams().do());
    const ids: string[] = [];
    for (const note of notes) {
      const txn = algosdk.makePaymentTxnWithSuggestedParamsFromObject({ sender: account.addr, receiver, amount, note, suggestedParams });
      await upstream('algod send', () => this.algod.sendRawTransaction(txn.signTxn(account.sk)).do());
      ids.push(txn.txID());
    }
    for (const id of ids) await upstream('algod confirmation', () => algosdk.waitForConfirmation(this.algod, id, CONFIRM_ROUNDS));
    return ids;
  }

  /** Payments `address` received from round `minRound` on, oldest first (every page). */
  async received(address: string, minRound: number): Promise<{ txns: ChainTxn[]; currentRound: number }> {
    return this.search((q) => q.address(address).addressRole('receiver').minRound(minRound));
  }

  /** Payments `address` sent whose note starts with `prefix`. */
  async sentWithPrefix(address: string, prefix: Uint8Array): Promise<ChainTxn[]> {
    return (await this.search((q) => q.address(address).addressRole('sender').notePrefix(prefix))).txns;
  }

  private async search(shape: (q: ReturnType<algosdk.Indexer['searchForTransactions']>) => ReturnType<algosdk.Indexer['searchForTransactions']>): Promise<{ txns: ChainTxn[]; currentRound: number }> {
    const txns: ChainTxn[] = [];
    let next: string | undefined;
    let currentRound = 0;
    do {
      const query = shape(this.indexer.searchForTransactions().txType('pay').limit(PAGE));
      if (next) query.nextToken(next);
      const page = await upstream('indexer search', () => query.do());
      currentRound = Number(page.currentRound);
      for (const t of page.transactions) {
        if (!t.id || !t.paymentTransaction) continue;
        txns.push({ id: t.id, round: Number(t.confirmedRound ?? 0), sender: t.sender, receiver: t.paymentTransaction.receiver, amount: t.paymentTransaction.amount, note: t.note ?? new Uint8Array() });
      }
      next = page.transactions.length === PAGE ? page.nextToken : undefined;
    } while (next);
    return { txns, currentRound };
  }
}

/** A node that cannot be reached or refuses is an upstream error naming what was asked. */
async function upstream<T>(what: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    const e = err as { status?: number; response?: { body?: { message?: string } }; message?: string };
    const why = e.response?.body?.message ?? e.message ?? String(err);
    throw new RoostError('UPSTREAM_ERROR', `${what} failed${e.status ? ` (${e.status})` : ''}: ${why}`, { status: 502 });
  }
}

/** The chain an account talks on, from the extension's running state. */
export const chainOf = (s: { chain(network: Network): Chain }, account: { network: Network }): Chain => s.chain(account.network);
