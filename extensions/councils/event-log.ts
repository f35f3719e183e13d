// Everything that happens in a launch, in order: stage changes, log lines and discussion messages share
// one sequence per launch. Each is stored, audited and published on `council-launch.{id}`, where the
// WebSocket subscribers of the launch get it; the replay route and the REST lists serve the same objects.
import type { Knex } from 'knex';
import type { ExtensionContext } from '../../sdk/extension.js';
import type { Stage } from './launch-store.js';

export type MessageKind = 'response' | 'discussion' | 'review' | 'synthesis' | 'chat_question' | 'chat_answer';

export type EventInput =
  | { type: 'stage_change'; stage: Stage; previousStage: Stage | null; reason?: string }
  | { type: 'log'; stage: Stage; level: 'info' | 'warn' | 'error'; message: string; agentId?: string }
  | { type: 'discussion_message'; stage: Stage; kind: MessageKind; agentId: string | null; round: number; content: string; vote?: string | null; reason?: string | null };

export type WireEvent = { type: string; launchId: string; seq: number; stage: Stage; at: string } & Record<string, unknown>;

interface Row {
  launch_id: string;
  seq: number;
  type: EventInput['type'];
  stage: Stage;
  level: string | null;
  agent_id: string | null;
  round: number | null;
  kind: string | null;
  content: string;
  vote: string | null;
  reason: string | null;
  at: string;
}

const TYPES = { logs: ['stage_change', 'log'], messages: ['discussion_message'] } as const;

export class EventLog {
  constructor(private readonly ctx: ExtensionContext) {}

  /** Stores the event with the launch's next seq, then audits and publishes it. */
  async append(launch: { id: string; tenantId: string }, input: EventInput): Promise<WireEvent> {
    const event = await this.ctx.db.transaction((trx) => this.write(launch, input, trx));
    this.publish(launch, event);
    return event;
  }

  /** Stores the event inside `trx`; the caller publishes it once the transaction has committed. */
  async write(launch: { id: string }, input: EventInput, trx: Knex.Transaction): Promise<WireEvent> {
    await trx('council_launches').where({ id: launch.id }).increment('seq', 1);
    const { seq } = (await trx('council_launches').where({ id: launch.id }).first('seq')) as { seq: number };
    const row = toRow(launch.id, Number(seq), input);
    await trx('council_events').insert(row);
    return toWire(row);
  }

  publish(launch: { id: string; tenantId: string }, event: WireEvent): void {
    this.ctx.host.emit(`council-launch.${launch.id}`, event, launch.tenantId);
    this.ctx.host.audit(`council.${event.type.replace(/^council_/, '')}`, `council-launch:${launch.id}`, { tenantId: launch.tenantId, ...event });
  }

  async list(launchId: string, which: keyof typeof TYPES | 'all', page: { after: number; limit: number; offset: number }): Promise<{ events: WireEvent[]; hasMore: boolean }> {
    const types = which === 'all' ? [...TYPES.logs, ...TYPES.messages] : [...TYPES[which]];
    const marks = types.map(() => '?').join(', ');
    const rows = await this.ctx.sql.all<Row>(
      `SELECT * FROM council_events WHERE launch_id = ? AND seq > ? AND type IN (${marks}) ORDER BY seq LIMIT ? OFFSET ?`,
      [launchId, page.after, ...types, page.limit + 1, page.offset],
    );
    const hasMore = rows.length > page.limit;
    return { events: rows.slice(0, page.limit).map(toWire), hasMore };
  }

  /** The messages of one kind in a launch (the answers of a round, the reviews), oldest first. */
  async messages(launchId: string, kind: MessageKind, round?: number): Promise<WireEvent[]> {
    const rows = round === undefined
      ? await this.ctx.sql.all<Row>("SELECT * FROM council_events WHERE launch_id = ? AND type = 'discussion_message' AND kind = ? ORDER BY seq", [launchId, kind])
      : await this.ctx.sql.all<Row>("SELECT * FROM council_events WHERE launch_id = ? AND type = 'discussion_message' AND kind = ? AND round = ? ORDER BY seq", [launchId, kind, round]);
    return rows.map(toWire);
  }
}

function toRow(launchId: string, seq: number, input: EventInput): Row {
  const base = { launch_id: launchId, seq, type: input.type, stage: input.stage, level: null, agent_id: null, round: null, kind: null, vote: null, reason: null, at: new Date().toISOString() };
  switch (input.type) {
    case 'stage_change':
      return { ...base, kind: input.previousStage, content: input.reason ?? '' };
    case 'log':
      return { ...base, level: input.level, agent_id: input.agentId ?? null, content: input.message };
    case 'discussion_message':
      return { ...base, kind: input.kind, agent_id: input.agentId, round: input.round, content: input.content, vote: input.vote ?? null, reason: input.reason ?? null };
  }
}

function toWire(row: Row): WireEvent {
  const base = { launchId: row.launch_id, seq: Number(row.seq), stage: row.stage, at: row.at };
  switch (row.type) {
    case 'stage_change':
      return { type: 'council_stage_change', ...base, previousStage: row.kind, ...(row.content ? { reason: row.content } : {}) };
    case 'log':
      return { type: 'council_log', ...base, level: row.level, message: row.content, ...(row.agent_id ? { agentId: row.agent_id } : {}) };
    case 'discussion_message':
      return {
        type: 'council_discussion_message', ...base, kind: row.kind, agentId: row.agent_id, round: Number(row.round), content: row.content,
        ...(row.kind === 'review' ? { vote: row.vote, reason: row.reason } : {}),
      };
  }
}
