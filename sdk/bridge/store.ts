// Reads and writes of the shared bridge tables (tables.ts).
import type { Knex } from 'knex';

export interface Conversation {
  bridge: string;
  conversationId: string;
  channelId: string;
  threadId: string | null;
  agentId: string;
  sessionId: string | null;
  title: string;
  lastActivityAt: string;
}

export interface PromptMessage {
  externalId: string;
  tenantId: string;
  kind: 'question' | 'escalation';
  subjectId: string;
  conversationId: string | null;
  options: string[];
  closedAt: string | null;
}

export interface ConfigRow {
  tenantId: string;
  routeKey: string | null;
  settings: Record<string, unknown>;
  secrets: string;
  updatedAt: string;
}

const SEEN_FOR_MS = 24 * 3600_000;
const now = () => new Date().toISOString();

export class BridgeStore {
  constructor(
    private readonly db: Knex,
    readonly bridge: string,
  ) {}

  async config(tenantId: string): Promise<ConfigRow | undefined> {
    return toConfig(await this.db('bridge_config').where({ tenant_id: tenantId }).first());
  }

  async configByRouteKey(routeKey: string): Promise<ConfigRow | undefined> {
    return toConfig(await this.db('bridge_config').where({ route_key: routeKey }).first());
  }

  async allConfigs(): Promise<ConfigRow[]> {
    return (await this.db('bridge_config').select()).map((row) => toConfig(row)!);
  }

  /** False when another tenant already holds that route key. */
  async saveConfig(row: Omit<ConfigRow, 'updatedAt'>): Promise<boolean> {
    if (row.routeKey) {
      const holder = await this.db('bridge_config').where({ route_key: row.routeKey }).whereNot({ tenant_id: row.tenantId }).first('tenant_id');
      if (holder) return false;
    }
    const values = { route_key: row.routeKey, settings: JSON.stringify(row.settings), secrets: row.secrets, updated_at: now() };
    await this.db('bridge_config').insert({ tenant_id: row.tenantId, ...values }).onConflict('tenant_id').merge(values);
    return true;
  }

  async conversation(tenantId: string, conversationId: string): Promise<Conversation | undefined> {
    return this.toConversation(await this.db('conversations').where({ tenant_id: tenantId, conversation_id: conversationId }).first());
  }

  async conversations(tenantId: string, limit = 100): Promise<Conversation[]> {
    const rows = await this.db('conversations').where({ tenant_id: tenantId }).whereNotNull('session_id').orderBy('last_activity_at', 'desc').limit(limit);
    return rows.map((row) => this.toConversation(row)!);
  }

  async upsertConversation(tenantId: string, c: Omit<Conversation, 'bridge' | 'lastActivityAt'>): Promise<void> {
    const at = now();
    const values = { channel_id: c.channelId, thread_id: c.threadId, agent_id: c.agentId, session_id: c.sessionId, title: c.title.slice(0, 200), last_activity_at: at };
    await this.db('conversations').insert({ tenant_id: tenantId, conversation_id: c.conversationId, created_at: at, ...values }).onConflict(['tenant_id', 'conversation_id']).merge(values);
  }

  async touch(tenantId: string, conversationId: string): Promise<void> {
    await this.db('conversations').where({ tenant_id: tenantId, conversation_id: conversationId }).update({ last_activity_at: now() });
  }

  async forgetSession(tenantId: string, conversationId: string): Promise<void> {
    await this.db('conversations').where({ tenant_id: tenantId, conversation_id: conversationId }).update({ session_id: null, last_activity_at: now() });
  }

  /** True the first time a delivery key is seen; false for a duplicate (a retry, a replay). */
  async firstSight(key: string): Promise<boolean> {
    await this.db('seen_deliveries').where('seen_at', '<', new Date(Date.now() - SEEN_FOR_MS).toISOString()).delete();
    const inserted = await this.db('seen_deliveries').insert({ delivery_key: key, seen_at: now() }).onConflict('delivery_key').ignore().returning('delivery_key');
    return inserted.length > 0;
  }

  async recordPrompt(p: Omit<PromptMessage, 'closedAt'>): Promise<void> {
    await this.db('prompt_messages')
      .insert({ external_id: p.externalId, tenant_id: p.tenantId, kind: p.kind, subject_id: p.subjectId, conversation_id: p.conversationId, options: JSON.stringify(p.options), created_at: now() })
      .onConflict('external_id')
      .ignore();
  }

  async prompt(externalId: string): Promise<PromptMessage | undefined> {
    return toPrompt(await this.db('prompt_messages').where({ external_id: externalId }).first());
  }

  async promptFor(tenantId: string, kind: PromptMessage['kind'], subjectId: string): Promise<PromptMessage | undefined> {
    return toPrompt(await this.db('prompt_messages').where({ tenant_id: tenantId, kind, subject_id: subjectId }).first());
  }

  /** True when this call closed it (a second answer finds it closed). */
  async closePrompt(externalId: string): Promise<boolean> {
    return (await this.db('prompt_messages').where({ external_id: externalId }).whereNull('closed_at').update({ closed_at: now() })) > 0;
  }

  private toConversation(row: Record<string, any> | undefined): Conversation | undefined {
    if (!row) return undefined;
    return {
      bridge: this.bridge,
      conversationId: row.conversation_id,
      channelId: row.channel_id,
      threadId: row.thread_id ?? null,
      agentId: row.agent_id,
      sessionId: row.session_id ?? null,
      title: row.title,
      lastActivityAt: row.last_activity_at,
    };
  }
}

function toConfig(row: Record<string, any> | undefined): ConfigRow | undefined {
  if (!row) return undefined;
  return { tenantId: row.tenant_id, routeKey: row.route_key ?? null, settings: JSON.parse(row.settings), secrets: row.secrets, updatedAt: row.updated_at };
}

function toPrompt(row: Record<string, any> | undefined): PromptMessage | undefined {
  if (!row) return undefined;
  return { externalId: row.external_id, tenantId: row.tenant_id, kind: row.kind, subjectId: row.subject_id, conversationId: row.conversation_id ?? null, options: JSON.parse(row.options), closedAt: row.closed_at ?? null };
}

/** A conversation as the contract lists it (without the chat service's own channel and thread ids). */
export const publicConversation = ({ bridge, conversationId, agentId, sessionId, title, lastActivityAt }: Conversation) => ({ bridge, conversationId, agentId, sessionId, title, lastActivityAt });
