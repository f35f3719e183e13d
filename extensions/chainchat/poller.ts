// Reading the chain: for each tenant with an account, the instance that leads "chainchat:<tenant>"
// asks the indexer for the payments the account received since the last round read, hands each to the
// inbound pipeline in order, then stores the round, and sends the agent messages queued for the chain
// (onchain-agent-messages.ts). An unreachable node only delays this (it is logged
// and tried again next tick); nothing read is lost, and a txid is handled once.
import { handleTxn } from './inbound.js';
import { flushAgentMessages } from './onchain-agent-messages.js';
import { chainOf } from './chain.js';
import type { State } from './state.js';

/** Chunks of a message that never completed are dropped after this long. */
const CHUNKS_KEPT_MS = 24 * 3_600_000;

export class Poller {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  private wake = false;
  private lastPrune = 0;

  constructor(private readonly s: State) {}

  start(): void {
    const tick = () => {
      if (this.stopped) return;
      this.running = this.tick().finally(() => {
        if (!this.stopped) this.timer = setTimeout(tick, this.s.config.pollMs);
      });
    };
    tick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  private async pollTenant(tenantId: string): Promise<void> {
    const account = await this.s.accounts.of(tenantId);
    const { txns, currentRound } = await chainOf(this.s, account).received(account.address, account.lastRound > 0 ? account.lastRound + 1 : 0);
    for (const txn of txns.sort((a, b) => a.round - b.round)) {
      try {
        await handleTxn(this.s, account, txn);
      } catch (err) {
        this.s.ctx.host.log('warn', `chainchat: transaction ${txn.id} for tenant ${tenantId}: ${(err as Error).message}`);
      }
    }
    await this.s.accounts.setLastRound(tenantId, Math.max(currentRound, ...txns.map((t) => t.round)));
  }

  private async tick(): Promise<void> {
    try {
      const tenants = await this.s.accounts.tenants();
      if (!this.wake && tenants.length > 0) {
        this.wake = true;
        await this.s.ctx.host.wakeOnStart(true);
      }
      for (const tenantId of tenants) {
        if (!(await this.s.ctx.host.leader(`chainchat:${tenantId}`))) continue;
        await this.pollTenant(tenantId).catch((err) => this.s.ctx.host.log('warn', `chainchat: reading the chain for tenant ${tenantId} failed: ${(err as Error).message}`));
        await flushAgentMessages(this.s, await this.s.accounts.of(tenantId)).catch((err) => this.s.ctx.host.log('warn', `chainchat: sending agent messages for tenant ${tenantId} failed: ${(err as Error).message}`));
      }
      if (Date.now() - this.lastPrune > CHUNKS_KEPT_MS) {
        this.lastPrune = Date.now();
        await this.s.inbound.pruneChunks(new Date(Date.now() - CHUNKS_KEPT_MS));
      }
    } catch (err) {
      this.s.ctx.host.log('warn', `chainchat: polling failed: ${(err as Error).message}`);
    }
  }
}
