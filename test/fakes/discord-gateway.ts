// A fake Discord Gateway (v10, JSON encoding) on loopback for the real @discordjs/ws client: HELLO on
// connect, IDENTIFY checked against the bot token (4004 otherwise) and answered with READY (the bot user,
// a session id, this server as resume_gateway_url), heartbeats ACKed, dispatches sequenced per session,
// and RESUME replaying what the session missed, then RESUMED. A test dispatches MESSAGE_CREATE and drops
// the connection on demand.
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';

export interface FakeGateway {
  /** ROOST_EXT_DISCORD_GATEWAY_URL */
  url: string;
  botUserId: string;
  /** Connections opened, IDENTIFYs and RESUMEs received, heartbeats ACKed. */
  counts: { connections: number; identifies: number; resumes: number; heartbeats: number };
  /** The intents the last IDENTIFY asked for. */
  intents: number | null;
  /** The query of the last connection (v=10&encoding=json). */
  query: URLSearchParams | null;
  /** Whether a session is identified (or resumed) on an open connection. */
  readonly live: boolean;
  /** Sends a dispatch to the session; kept for replay if no connection is open. */
  dispatch(t: string, d: Record<string, unknown>): void;
  /** Closes the open connection as a drop (4000 "unknown error": the client resumes). */
  drop(): void;
  close(): Promise<void>;
}

interface Session {
  id: string;
  seq: number;
  events: Array<{ s: number; t: string; d: unknown }>;
  socket: WebSocket | null;
}

const HEARTBEAT_MS = 1_000;

export async function startFakeGateway(botToken: string, botUserId: string, applicationId: string): Promise<FakeGateway> {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let session: Session | null = null;
  let sessions = 0;
  const gateway: FakeGateway = {
    url,
    botUserId,
    counts: { connections: 0, identifies: 0, resumes: 0, heartbeats: 0 },
    intents: null,
    query: null,
    get live() {
      return session?.socket?.readyState === 1;
    },
    dispatch(t, d) {
      if (!session) throw new Error('no session to dispatch to');
      send(session, t, d);
    },
    drop() {
      session?.socket?.close(4000, 'unknown error');
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of server.clients) client.terminate();
        server.close(() => resolve());
      }),
  };

  function send(s: Session, t: string, d: unknown): void {
    const event = { s: ++s.seq, t, d };
    s.events.push(event);
    if (s.socket?.readyState === 1) s.socket.send(JSON.stringify({ op: 0, ...event }));
  }

  server.on('connection', (socket, req) => {
    gateway.counts.connections++;
    gateway.query = new URL(req.url ?? '/', url.replace(/^ws/, 'http')).searchParams;
    socket.send(JSON.stringify({ op: 10, d: { heartbeat_interval: HEARTBEAT_MS } }));
    socket.on('message', (raw) => {
      const { op, d } = JSON.parse(String(raw)) as { op: number; d: any };
      if (op === 1) {
        gateway.counts.heartbeats++;
        socket.send(JSON.stringify({ op: 11 }));
      } else if (op === 2) {
        gateway.counts.identifies++;
        if (d?.token !== botToken) return socket.close(4004, 'Authentication failed.');
        gateway.intents = Number(d.intents);
        if (session?.socket && session.socket !== socket) session.socket.terminate();
        session = { id: `session-${++sessions}`, seq: 0, events: [], socket };
        send(session, 'READY', { v: 10, user: { id: botUserId, username: 'roost-bot', discriminator: '0', bot: true }, guilds: [], session_id: session.id, resume_gateway_url: url, shard: [0, 1], application: { id: applicationId, flags: 0 } });
      } else if (op === 6) {
        gateway.counts.resumes++;
        if (d?.token !== botToken) return socket.close(4004, 'Authentication failed.');
        if (!session || d?.session_id !== session.id) return socket.send(JSON.stringify({ op: 9, d: false }));
        const s: Session = session;
        s.socket = socket;
        for (const event of s.events.filter((e) => e.s > Number(d.seq))) socket.send(JSON.stringify({ op: 0, ...event }));
        send(s, 'RESUMED', {});
      }
    });
    socket.on('close', () => {
      if (session?.socket === socket) session.socket = null;
    });
  });
  return gateway;
}

let messages = 0;

/** A MESSAGE_CREATE as the Gateway sends it for a guild message. */
export function messageCreate(channelId: string, content: string, options: { author?: { id: string; username: string; bot?: boolean }; mentions?: string[]; guildId?: string } = {}): Record<string, unknown> & { id: string } {
  const author = options.author ?? { id: '44000000000000001', username: 'alice' };
  return {
    id: `66000000000000${String(++messages).padStart(4, '0')}`,
    channel_id: channelId,
    guild_id: options.guildId ?? '77000000000000001',
    author: { discriminator: '0', global_name: null, avatar: null, ...author },
    content,
    timestamp: new Date().toISOString(),
    edited_timestamp: null,
    tts: false,
    mention_everyone: false,
    mentions: (options.mentions ?? []).map((id) => ({ id, username: 'roost-bot', discriminator: '0', global_name: null, avatar: null, bot: true })),
    mention_roles: [],
    attachments: [],
    embeds: [],
    pinned: false,
    type: 0,
  };
}
