// The ordered stream of one session. Each event gets the next seq and goes out on the bus at once (so
// subscribers see it with no storage latency, in order); rows are written in batches right after.
// Some events also become conversation messages (role, content) for GET /messages and the summary.
import type { Knex } from 'knex';
import { paged, type PageRequest } from '../../sdk/db.js';
import type { SqlReader } from '../../sdk/sql.js';
import type { SessionEvent } from './contract.js';

export type { SessionEvent };

export type Publish = (event: SessionEvent) => void;

/** A session event as its stream delivers it (live, and when a `subscribe` with `since` replays it). */
export function streamMessage(sessionId: string, event: SessionEvent) {
  return { type: 'session_event', sessionId, seq: event.seq, event };
}

interface MessageRow {
  session_id: string;
  seq: number;
  turn: number;
  role: string;
  content: string;
  meta: string | null;
  created_at: string;
}

export class SessionLog {
  private events: Array<{ session_id: string; seq: number; type: string; data: string; created_at: string }> = [];
  private messages: MessageRow[] = [];
  private writing: Promise<void> = Promise.resolve();
  private scheduled = false;
  /** Readers waiting for an event past a seq (GET …/events?waitMs): woken by the next append (of one of the types they wait for). */
  private readonly waiters = new Set<{ wake: () => void; types: ReadonlySet<string> | null }>();
  /** The last seq of each type appended by this process; what was stored before it opened the log is not here. */
  private readonly lastOfType = new Map<string, number>();
  private readonly openedAfter: number;

  private constructor(private readonly db: Knex, readonly sessionId: string, private nextSeq: number, private readonly publish: Publish) {
    this.openedAfter = nextSeq - 1;
  }

  /** The log of a session created just now: nothing stored yet, so no need to ask where it ends. */
  static fresh(db: Knex, sessionId: string, publish: Publish): SessionLog {
    return new SessionLog(db, sessionId, 1, publish);
  }

  static async open(db: Knex, sessionId: string, publish: Publish): Promise<SessionLog> {
    const row = await db('session_events').where({ session_id: sessionId }).max<{ m: number | null }[]>({ m: 'seq' }).first();
    return new SessionLog(db, sessionId, Number(row?.m ?? 0) + 1, publish);
  }

  append(type: string, data: Record<string, unknown>, turn: number, when = new Date()): SessionEvent {
    const at = when.toISOString();
    const event: SessionEvent = { ...data, seq: this.nextSeq++, type, turn, at };
    this.events.push({ session_id: this.sessionId, seq: event.seq, type, data: JSON.stringify(event), created_at: at });
    const message = messageOf(event);
    if (message) this.messages.push({ session_id: this.sessionId, seq: event.seq, turn, created_at: at, ...message });
    this.publish(event);
    this.lastOfType.set(type, event.seq);
    for (const waiter of this.waiters) {
      if (waiter.types && !waiter.types.has(type)) continue;
      waiter.wake();
      this.waiters.delete(waiter);
    }
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => void this.flush());
    }
    return event;
  }

  /**
   * Resolves once an event past `seq` has been appended — of one of `types`, when given (a reader
   * waiting for a turn's end need not wake for each streamed delta) — or after `ms`, whichever comes first.
   */
  async waitBeyond(seq: number, ms: number, types: ReadonlySet<string> | null = null): Promise<void> {
    if (ms <= 0 || seq < this.openedAfter) return;
    const seen = types ? Math.max(-1, ...[...types].map((t) => this.lastOfType.get(t) ?? -1)) : this.nextSeq - 1;
    if (seen > seq) return;
    let wake!: () => void;
    const appended = new Promise<void>((resolve) => (wake = resolve));
    const waiter = { wake, types };
    this.waiters.add(waiter);
    const timer = setTimeout(wake, ms);
    await appended;
    clearTimeout(timer);
    this.waiters.delete(waiter);
  }

  /** Resolves once every event appended so far is stored. */
  flush(): Promise<void> {
    this.scheduled = false;
    const events = this.events;
    const messages = this.messages;
    this.events = [];
    this.messages = [];
    if (events.length > 0) {
      this.writing = this.writing.then(() =>
        this.db.transaction(async (trx) => {
          for (let i = 0; i < events.length; i += 200) await trx('session_events').insert(events.slice(i, i + 200));
          for (let i = 0; i < messages.length; i += 200) await trx('session_messages').insert(messages.slice(i, i + 200));
        }).catch((err: Error) => void process.stderr.write(`session ${this.sessionId}: storing events failed: ${err.message}\n`)),
      );
    }
    return this.writing;
  }
}

/** Which events are conversation messages. */
function messageOf(event: SessionEvent): { role: string; content: string; meta: string | null } | undefined {
  switch (event.type) {
    case 'user_message':
      return { role: 'user', content: String(event.content), meta: null };
    case 'assistant_message': {
      const toolUses = event.toolUses as unknown[];
      if (event.text === '' && toolUses.length === 0) return undefined;
      return { role: 'assistant', content: String(event.text), meta: toolUses.length > 0 ? JSON.stringify({ toolUses }) : null };
    }
    case 'tool_result':
      return { role: 'tool', content: String(event.output), meta: JSON.stringify({ toolUseId: event.id, name: event.name, isError: event.isError }) };
    case 'runner_started':
      return event.summary ? { role: 'system', content: String(event.summary), meta: JSON.stringify({ reason: event.reason }) } : undefined;
    default:
      return undefined;
  }
}

export async function listMessages(sql: SqlReader, sessionId: string, page: PageRequest) {
  const { rows, total, hasMore } = await paged<MessageRow & { id: number }>(sql, { from: 'session_messages WHERE session_id = ?', params: [sessionId], orderBy: 'seq' }, page);
  return {
    messages: rows.map((r) => ({ seq: r.seq, turn: r.turn, role: r.role, content: r.content, ...(r.meta ? JSON.parse(r.meta) : {}), createdAt: r.created_at })),
    ...(total === undefined ? {} : { total }),
    hasMore,
  };
}

export async function listEvents(sql: SqlReader, sessionId: string, after: number, limit: number): Promise<SessionEvent[]> {
  const rows = await sql.all<{ data: string }>('SELECT data FROM session_events WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ?', [sessionId, after, limit]);
  return rows.map((r) => JSON.parse(r.data) as SessionEvent);
}
