// New agents' wallets, opened together. A creation event waits for the batch being written to finish,
// then goes with every creation that arrived meanwhile: one transaction for the batch (every wallet and
// its initial grant, one insert each) instead of one per agent — the commit is paid once, and a quiet
// server pays no wait. Each event's handler awaits its own wallet, so an event is answered only once its
// wallet is committed, as before. A batch that fails (a wallet there already: a creation delivered twice)
// is opened again one agent at a time, each finding its wallet or writing it.
import type { ExtensionContext } from '../../sdk/extension.js';
import { announceBalance } from './announce.js';
import { openWallet } from './agents-client.js';
import { ConfigStore } from './config.js';
import { Ledger, type NewWallet } from './ledger.js';

type Agent = { id: string; name: string; wallet: string };
interface Waiting { tenantId: string; agent: Agent; done: () => void; failed: (err: unknown) => void }

/** Wallets per batch: a multi-row insert of this many stays under SQLite's bound-parameter limit. */
const MAX_BATCH = 50;

export class WalletOpenings {
  private waiting: Waiting[] = [];
  private draining: Promise<void> | undefined;

  constructor(private readonly ctx: ExtensionContext) {}

  /** Opens the wallet of an agent just created, with the tenant's initial grant; resolves once committed. */
  open(tenantId: string, agent: Agent): Promise<void> {
    return new Promise((done, failed) => {
      this.waiting.push({ tenantId, agent, done, failed });
      // The first of a burst waits one turn, so creations read from the same chunk go together.
      this.draining ??= new Promise<void>((turn) => setImmediate(turn)).then(() => this.drain());
    });
  }

  /** Resolves once every wallet asked for is written (shutdown waits for it before closing the database). */
  async idle(): Promise<void> {
    await this.draining;
  }

  private async drain(): Promise<void> {
    while (this.waiting.length > 0) await this.write(this.waiting.splice(0, MAX_BATCH));
    this.draining = undefined;
  }

  private async write(batch: Waiting[]): Promise<void> {
    try {
      const grants = new Map<string, number>();
      for (const { tenantId } of batch) {
        if (!grants.has(tenantId)) grants.set(tenantId, (await new ConfigStore(this.ctx.db, this.ctx.sql).get(tenantId)).initialGrant);
      }
      const wallets: NewWallet[] = batch.map(({ tenantId, agent }) => ({ tenantId, agent, grant: grants.get(tenantId)! }));
      const changes = await new Ledger(this.ctx.db, this.ctx.sql).openNew(wallets);
      for (const change of changes) announceBalance(this.ctx, change);
      for (const waiting of batch) waiting.done();
    } catch {
      await Promise.all(batch.map(({ tenantId, agent, done, failed }) => openWallet(this.ctx, tenantId, agent).then(() => done(), failed)));
    }
  }
}
