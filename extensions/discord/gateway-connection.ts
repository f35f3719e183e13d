// One bot's connection to the Discord Gateway through @discordjs/ws: IDENTIFY with the guild-message and
// message-content intents, heartbeats, and RESUME after a drop are the library's; this adds what it
// leaves to its user. Its session store is this connection's own (the library's default is one per
// process, keyed by shard only: two tenants' bots would resume each other's sessions). Reconnecting backs
// off: the library tries again after 500 ms, each further attempt without a READY or RESUMED in between
// waits twice as long, up to a minute. A close the library gives up on (a bad token, intents the
// application may not use) starts over with a fresh manager after the same backoff.
import type { REST } from '@discordjs/rest';
import { WebSocketManager, WebSocketShardEvents, WebSocketShardStatus, type SessionInfo } from '@discordjs/ws';
import { GatewayDispatchEvents, GatewayIntentBits, type APIGatewayBotInfo, type GatewayDispatchPayload, type GatewayMessageCreateDispatchData } from 'discord-api-types/v10';

/** Mentions, and every message in the bot's threads: the message-content intent is privileged (docs/bridges.md). */
export const INTENTS = GatewayIntentBits.GuildMessages | GatewayIntentBits.MessageContent;
const MAX_BACKOFF_MS = 60_000;
const BASE_BACKOFF_MS = 1_000;

export interface GatewayEvents {
  /** The bot's user id, from READY. */
  ready(botUserId: string): void;
  message(message: GatewayMessageCreateDispatchData, botUserId: string): void;
  log(level: 'debug' | 'info' | 'warn' | 'error', message: string): void;
}

export type GatewayStatus = 'connecting' | 'ready' | 'reconnecting' | 'stopped';

/** @discordjs/ws asks GET /gateway/bot for where to connect; ROOST_EXT_DISCORD_GATEWAY_URL replaces the answer's URL. */
class Manager extends WebSocketManager {
  gatewayUrl: string | undefined;

  override async fetchGatewayInformation(force?: boolean): Promise<APIGatewayBotInfo> {
    const info = await super.fetchGatewayInformation(force);
    return this.gatewayUrl ? { ...info, url: this.gatewayUrl } : info;
  }
}

export class GatewayConnection {
  status: GatewayStatus = 'connecting';
  lastError: string | null = null;
  private readonly sessions = new Map<number, SessionInfo>();
  private manager: Manager | undefined;
  private botUserId: string | undefined;
  /** Connection attempts of this manager since the last READY or RESUMED. */
  private attempts = 0;
  /** Managers started over since the last READY or RESUMED. */
  private failures = 0;
  private readonly stopping = new AbortController();
  private restartTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly rest: REST,
    private readonly token: string,
    private readonly gatewayUrl: string | undefined,
    private readonly events: GatewayEvents,
  ) {}

  start(): void {
    if (this.stopping.signal.aborted) return;
    this.attempts = 0;
    const manager = new Manager({
      token: this.token,
      intents: INTENTS,
      rest: this.rest,
      shardCount: null,
      retrieveSessionInfo: (shardId) => this.session(manager, shardId),
      updateSessionInfo: (shardId, info) => void (info ? this.sessions.set(shardId, info) : this.sessions.delete(shardId)),
    });
    manager.gatewayUrl = this.gatewayUrl;
    this.manager = manager;
    manager.on(WebSocketShardEvents.Dispatch, (payload) => this.dispatch(payload));
    manager.on(WebSocketShardEvents.Ready, (data) => {
      this.connected();
      this.botUserId = data.user.id;
      this.events.ready(data.user.id);
    });
    manager.on(WebSocketShardEvents.Resumed, () => this.connected());
    manager.on(WebSocketShardEvents.Debug, (m) => this.events.log('debug', m));
    manager.on(WebSocketShardEvents.Closed, (code) => {
      if (this.stopping.signal.aborted) return;
      this.status = 'reconnecting';
      this.events.log('info', `the Gateway closed the connection (${code})`);
    });
    // Only the closes the library does not recover from (and inflate failures) come here.
    manager.on(WebSocketShardEvents.Error, (err) => this.failed(manager, err.message));
    manager.connect().catch((err: Error) => this.failed(manager, err.message));
  }

  /** Closes the connection; nothing reconnects after this. */
  async stop(): Promise<void> {
    this.stopping.abort();
    this.status = 'stopped';
    clearTimeout(this.restartTimer);
    await Promise.resolve(this.manager?.destroy({ reason: 'the bridge stops' })).catch(() => undefined);
  }

  private connected(): void {
    this.attempts = 0;
    this.failures = 0;
    this.status = 'ready';
    this.lastError = null;
  }

  private dispatch(payload: GatewayDispatchPayload): void {
    if (payload.t === GatewayDispatchEvents.MessageCreate && this.botUserId) this.events.message(payload.d, this.botUserId);
  }

  /**
   * The library asks for the session on every dispatch and heartbeat, and before each connection attempt
   * (the shard is idle then): the backoff waits there. Once stopped it never answers an attempt, so a
   * shard that was between attempts stays parked instead of connecting.
   */
  private async session(manager: Manager, shardId: number): Promise<SessionInfo | null> {
    if ((await manager.fetchStatus()).get(shardId) === WebSocketShardStatus.Idle) {
      const delay = this.attempts === 0 ? 0 : backoff(this.attempts);
      this.attempts++;
      if (delay > 0) await sleep(delay, this.stopping.signal);
      if (this.stopping.signal.aborted) return new Promise<never>(() => undefined);
    }
    return this.sessions.get(shardId) ?? null;
  }

  private failed(manager: Manager, message: string): void {
    if (this.stopping.signal.aborted || manager !== this.manager) return;
    this.status = 'reconnecting';
    this.lastError = message;
    const delay = backoff(++this.failures);
    this.events.log('warn', `the Gateway connection failed: ${message}; starting over in ${Math.round(delay / 1000)} s`);
    clearTimeout(this.restartTimer);
    this.restartTimer = setTimeout(() => {
      void Promise.resolve(manager.destroy({ reason: 'starting over' })).catch(() => undefined);
      this.start();
    }, delay);
  }
}

const backoff = (attempt: number) => Math.min(BASE_BACKOFF_MS * 2 ** Math.max(0, attempt - 1), MAX_BACKOFF_MS) * (0.8 + Math.random() * 0.4);

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });
}
