// Delivering push notifications: a task with push configs is watched (its session's answer awaited)
// until it ends; each state it reaches — working, then completed, failed or canceled — is POSTed to every
// config's URL as the task in the config's version (0.3's Task, 1.0's StreamResponse `{task}`), with
// `X-A2A-Notification-Token` (the config's token) and `Authorization` (its authentication). A refused or
// failed delivery is tried again with backoff (5xx, 429 and network faults; a 4xx is the receiver's
// final word). Where it may go is the tenant's reach (sdk/reach.ts): checked when the config is set and
// again as each connection is made. The watches are the extension's running state (setup returns it);
// a restart watches again every task with a state not yet pushed.
import { RoostError } from '../../protocol/errors.js';
import type { ExtensionContext } from '../../sdk/extension.js';
import { request } from '../../sdk/outbound.js';
import { reachOfUrl, reachPolicy } from '../../sdk/reach.js';
import { Sealer } from '../../sdk/sealed.js';
import { PushConfigStore, type PushConfig } from './push-store.js';
import { currentTask } from './run-tasks.js';
import { FINAL_STATES, TaskStore, toA2ATask, type TaskRow } from './tasks.js';
import { toV1Task } from './v1-shapes.js';

/** Waits between tries of one delivery: five tries over about 15 s. */
const BACKOFF_MS = [500, 1_500, 4_000, 9_000];
const DELIVERY_TIMEOUT_MS = 10_000;
const WAIT_MS = 10_000;

export class PushWatcher {
  private readonly watching = new Set<string>();
  private stopped = false;

  constructor(private readonly ctx: ExtensionContext) {}

  /** Watches the tasks a previous run left with states to push. */
  async resume(): Promise<void> {
    for (const { tenantId, taskId } of await new PushConfigStore(this.ctx.db).unfinished()) this.watch(tenantId, taskId);
  }

  /** Starts watching the task, unless it is watched already; the state it is in now is pushed at once. */
  watch(tenantId: string, taskId: string): void {
    const key = `${tenantId}/${taskId}`;
    if (this.stopped || this.watching.has(key)) return;
    this.watching.add(key);
    this.holdWake();
    this.follow(tenantId, taskId)
      .catch((err: unknown) => this.ctx.host.log('warn', `push notifications of task ${taskId}: ${err instanceof Error ? err.message : String(err)}`))
      .finally(() => {
        this.watching.delete(key);
        this.holdWake();
      });
  }

  /** While a task is watched, this lazy extension is not stopped idle, and a restart starts it (to resume). */
  private holdWake(): void {
    this.ctx.host.wakeOnStart(this.watching.size > 0).catch((err: Error) => this.ctx.host.log('warn', `push notifications: wake_on_start failed: ${err.message}`));
  }

  stop(): void {
    this.stopped = true;
  }

  private async follow(tenantId: string, taskId: string): Promise<void> {
    const tasks = new TaskStore(this.ctx.db);
    let row = await tasks.get(tenantId, taskId);
    while (row && !this.stopped) {
      await this.deliverAll(tenantId, row);
      if (FINAL_STATES.has(row.state)) return;
      const next = await currentTask(this.ctx, tenantId, { tenantId }, row, WAIT_MS);
      row = FINAL_STATES.has(next.state) ? next : await tasks.get(tenantId, taskId);
    }
  }

  private async deliverAll(tenantId: string, row: TaskRow): Promise<void> {
    const owed = await new PushConfigStore(this.ctx.db).owed(tenantId, row.id, row.state, await Sealer.forExtension(this.ctx.host));
    await Promise.all(owed.map(async (config) => {
      await this.deliver(tenantId, row, config);
      await new PushConfigStore(this.ctx.db).markDelivered(tenantId, row.id, config.id, row.state);
    }));
  }

  private async deliver(tenantId: string, row: TaskRow, config: PushConfig & { credentials: string | null }): Promise<void> {
    const url = new URL(config.url);
    const headers: Record<string, string> = {
      ...(config.token ? { 'x-a2a-notification-token': config.token } : {}),
      ...(config.credentials ? { authorization: `${config.scheme ?? 'Bearer'} ${config.credentials}` } : {}),
    };
    const body = config.version === '1.0' ? { task: toV1Task(row) } : toA2ATask(row);
    const reach = reachOfUrl(reachPolicy(this.ctx), tenantId, url);
    let why = '';
    for (let attempt = 0; ; attempt++) {
      try {
        const reply = await request({ method: 'POST', url, headers, body, timeoutMs: DELIVERY_TIMEOUT_MS, maxBytes: 64 * 1024, reach, read: 'text' });
        if (reply.status < 300) return;
        why = `answered ${reply.status}`;
        if (reply.status < 500 && reply.status !== 429) break;
      } catch (err) {
        why = err instanceof Error ? err.message : String(err);
        if (err instanceof RoostError && err.code === 'FORBIDDEN') break;
      }
      const wait = BACKOFF_MS[attempt];
      if (wait === undefined || this.stopped) {
        this.ctx.host.log('warn', `push notification of task ${row.id} (${row.state}) to ${url.origin}: ${why}; gave up after ${attempt + 1} tries`);
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
    this.ctx.host.log('warn', `push notification of task ${row.id} (${row.state}) to ${url.origin}: ${why}; not tried again`);
  }
}
