// The Gateway side of the bridge: for each tenant whose configuration has a bot token, the instance that
// leads "discord-gateway:<tenant>" holds that bot's Gateway connection, and its messages go to
// messages.ts. No token, no connection: a server without one never reaches out. While any tenant has a
// token the server starts the extension with it (wake flag "gateway"). Checked every few seconds (a
// token set on another instance, leadership that moved) and at once when the configuration changes.
import type { DiscordBridge } from './bridge.js';
import { GatewayConnection, type GatewayStatus } from './gateway-connection.js';
import { onMessage } from './messages.js';

const SUPERVISE_MS = 5_000;

export class Gateways {
  private readonly running = new Map<string, { token: string; connection: GatewayConnection }>();
  private timer: NodeJS.Timeout | undefined;
  /** One supervision at a time (the timer and a configuration change may ask together). */
  private turn: Promise<void> = Promise.resolve();

  constructor(
    private readonly bridge: DiscordBridge,
    /** ROOST_EXT_DISCORD_GATEWAY_URL: where to connect instead of what GET /gateway/bot answers. */
    private readonly gatewayUrl: string | undefined,
  ) {}

  async start(): Promise<void> {
    await this.supervise();
    this.timer = setInterval(() => void this.supervise(), SUPERVISE_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.turn;
    await Promise.all([...this.running.values()].map((r) => r.connection.stop()));
    this.running.clear();
  }

  /** The tenant's connection as GET /api/bridges/discord shows it: null when this instance holds none. */
  status(tenantId: string): { status: GatewayStatus; lastError: string | null } | null {
    const connection = this.running.get(tenantId)?.connection;
    return connection ? { status: connection.status, lastError: connection.lastError } : null;
  }

  supervise(): Promise<void> {
    const next = this.turn.then(() => this.superviseOnce());
    this.turn = next.catch(() => undefined);
    return next;
  }

  private async superviseOnce(): Promise<void> {
    const { ctx } = this.bridge;
    try {
      const bots = (await this.bridge.configs.all()).flatMap((c) => (c.secrets.botToken ? [{ tenantId: c.tenantId, token: c.secrets.botToken }] : []));
      await this.bridge.wake.set('gateway', bots.length > 0);
      for (const { tenantId, token } of bots) {
        const leads = await ctx.host.leader(`discord-gateway:${tenantId}`);
        const current = this.running.get(tenantId);
        if (current && (!leads || current.token !== token)) await this.end(tenantId);
        if (leads && this.running.get(tenantId) === undefined) this.begin(tenantId, token);
      }
      for (const tenantId of this.running.keys()) if (!bots.some((b) => b.tenantId === tenantId)) await this.end(tenantId);
    } catch (err) {
      ctx.host.log('warn', `discord: supervising the Gateway connections failed: ${(err as Error).message}`);
    }
  }

  private begin(tenantId: string, token: string): void {
    const { ctx } = this.bridge;
    const connection = new GatewayConnection(this.bridge.rest.forBot(token), token, this.gatewayUrl, {
      ready: (botUserId) => ctx.host.log('info', `discord: tenant ${tenantId}'s bot ${botUserId} is on the Gateway`),
      message: (message, botUserId) => void onMessage(this.bridge, tenantId, botUserId, message).catch((err: Error) => ctx.host.log('error', `discord: message ${message.id} in ${message.channel_id} failed: ${err.message}`)),
      log: (level, message) => ctx.host.log(level, `discord: tenant ${tenantId}: ${message}`),
    });
    this.running.set(tenantId, { token, connection });
    connection.start();
  }

  private async end(tenantId: string): Promise<void> {
    const current = this.running.get(tenantId);
    this.running.delete(tenantId);
    await current?.connection.stop();
  }
}
