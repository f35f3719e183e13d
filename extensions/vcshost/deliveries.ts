// Outbound webhook deliveries: each event a registration wants becomes a stored delivery, sent as a
// signed POST (X-Roost-Signature-256: sha256=HMAC of the body with the registration's secret, by
// @octokit/webhooks-methods) and retried with exponential backoff until a 2xx or the last attempt.
// One instance sends (the leader of "codehost-deliveries"); the extension is woken with the server
// while deliveries are pending.
import { sign } from '@octokit/webhooks-methods';
import type { ExtensionContext } from '../../sdk/extension.js';
import type { Sealer } from '../../sdk/sealed.js';
import { integerSetting } from '../../sdk/settings.js';
import { request } from '../../sdk/outbound.js';
import { checkTarget, reachOfUrl, reachPolicy, type ReachPolicy } from '../../sdk/reach.js';
import { WebhookStore, type DeliveryRow } from './webhook-store.js';

const SEND_TIMEOUT_MS = 10_000;
/** What a receiver's answer may weigh; only its status is used. */
const REPLY_MAX_BYTES = 64 * 1024;
const BATCH = 20;

export interface DeliveryConfig {
  maxAttempts: number;
  retryBaseMs: number;
  tickMs: number;
  /** Where a tenant's webhooks may go: the one rule of sdk/reach.ts. */
  reach: ReachPolicy;
}

export function deliveryConfig(ctx: ExtensionContext): DeliveryConfig {
  return {
    maxAttempts: integerSetting(ctx, 'WEBHOOK_MAX_ATTEMPTS', 6, 1, 20),
    retryBaseMs: integerSetting(ctx, 'WEBHOOK_RETRY_BASE_MS', 30_000, 10, 3_600_000),
    tickMs: integerSetting(ctx, 'WEBHOOK_TICK_MS', 1000, 50, 60_000),
    reach: reachPolicy(ctx),
  };
}

export class Deliverer {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private awake = false;

  constructor(
    private readonly ctx: ExtensionContext,
    private readonly sealer: () => Promise<Sealer>,
    readonly config: DeliveryConfig,
    private readonly store = new WebhookStore(ctx.db),
  ) {}

  start(): void {
    this.timer = setInterval(() => this.kick(), this.config.tickMs);
    this.timer.unref();
    this.kick();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** An event for the tenant's registrations that want it. */
  async publish(tenantId: string, event: string, repo: string | null, data: unknown): Promise<number> {
    const targets = await this.store.matching(tenantId, event, repo);
    for (const registration of targets) await this.store.enqueue(registration, event, data, Date.now());
    if (targets.length > 0) this.kick();
    return targets.length;
  }

  kick(): void {
    this.running ??= this.sendDue()
      .catch((err: Error) => this.ctx.host.log('warn', `webhook deliveries: ${err.message}`))
      .finally(() => (this.running = undefined));
  }

  private async sendDue(): Promise<void> {
    const pending = await this.store.pending();
    if (pending !== this.awake) {
      this.awake = pending;
      await this.ctx.host.wakeOnStart(pending).catch(() => undefined);
    }
    if (!pending || !(await this.ctx.host.leader('codehost-deliveries'))) return;
    for (const delivery of await this.store.due(Date.now(), BATCH)) await this.attempt(delivery);
  }

  private async attempt(delivery: DeliveryRow): Promise<void> {
    const registration = await this.ctx.db('webhooks').where({ id: delivery.webhook_id }).first();
    if (!registration) return;
    const attempts = delivery.attempts + 1;
    const body = JSON.stringify({ id: delivery.id, event: delivery.event, createdAt: delivery.created_at, data: JSON.parse(delivery.payload) });
    let status: number | null = null;
    let error: string | null = null;
    try {
      const url = await checkTarget(this.config.reach, registration.tenant_id, registration.url, 'the webhook URL');
      const secret = (await this.sealer()).open(registration.secret_sealed, `webhook:${registration.id}`);
      const reply = await request({
        method: 'POST',
        url,
        reach: reachOfUrl(this.config.reach, registration.tenant_id, url),
        timeoutMs: SEND_TIMEOUT_MS,
        maxBytes: REPLY_MAX_BYTES,
        read: 'text',
        headers: {
          'content-type': 'application/json', 'user-agent': 'Roost-Webhooks/1', 'x-roost-event': delivery.event, 'x-roost-delivery': delivery.id,
          'x-roost-signature-256': await sign(secret, body),
        },
        payload: body,
      });
      status = reply.status;
      if (status < 200 || status > 299) error = `the receiver answered ${status}`;
    } catch (err) {
      error = (err as Error).message;
      if ((err as { code?: string }).code === 'FORBIDDEN') {
        await this.store.record(delivery.id, { status: 'failed', attempts, last_error: error });
        return; // a refused target is not retried
      }
    }
    if (!error) {
      await this.store.record(delivery.id, { status: 'delivered', attempts, response_status: status, last_error: null, delivered_at: new Date().toISOString() });
      return;
    }
    const last = attempts >= this.config.maxAttempts;
    const next = Date.now() + this.config.retryBaseMs * 2 ** (attempts - 1);
    await this.store.record(delivery.id, { status: last ? 'failed' : 'pending', attempts, response_status: status, last_error: error.slice(0, 2000), next_attempt_at: next });
  }
}
