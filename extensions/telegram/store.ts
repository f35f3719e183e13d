// The bridge's own records: each tenant's bot, chat → agent/session mappings, update ids seen, and the
// messages with buttons (owner questions, approvals) we sent.
import type { Knex } from 'knex';
import type { Sealer } from '../../sdk/sealed.js';
import { isUniqueViolation } from '../../sdk/db.js';

export type Mode = 'polling' | 'webhook';

export interface Bot {
  tenantId: string;
  botToken: string;
  webhookSecret: string | null;
  mode: Mode;
  apiRoot: string | null;
  webhookUrl: string | null;
  defaultAgentId: string | null;
  botUsername: string | null;
  pollOffset: number;
  updatedAt: string;
}

export interface Chat {
  tenantId: string;
  chatId: string;
  agentId: string | null;
  sessionId: string | null;
  title: string;
  lastActivityAt: string;
}

export interface Prompt {
  chatId: string;
  messageId: number;
  kind: 'question' | 'approval';
  refId: string;
  text: string;
  options: string[];
}

export class TelegramStore {
  constructor(private readonly db: Knex, private readonly sealer: Sealer) {}

  async bot(tenantId: string): Promise<Bot | undefined> {
    const row = await this.db('bots').where({ tenant_id: tenantId }).first();
    return row ? this.toBot(row) : undefined;
  }

  async pollingBots(): Promise<Bot[]> {
    return (await this.db('bots').where({ mode: 'polling' })).map((r) => this.toBot(r));
  }

  async saveBot(bot: Omit<Bot, 'pollOffset' | 'updatedAt'>): Promise<void> {
    const row = {
      tenant_id: bot.tenantId,
      secrets: this.sealer.seal(JSON.stringify({ botToken: bot.botToken, ...(bot.webhookSecret ? { webhookSecret: bot.webhookSecret } : {}) })),
      mode: bot.mode,
      api_root: bot.apiRoot,
      webhook_url: bot.webhookUrl,
      default_agent_id: bot.defaultAgentId,
      bot_username: bot.botUsername,
      updated_at: new Date().toISOString(),
    };
    await this.db('bots').insert({ ...row, poll_offset: 0 }).onConflict('tenant_id').merge(row);
  }

  async removeBot(tenantId: string): Promise<boolean> {
    return (await this.db('bots').where({ tenant_id: tenantId }).delete()) > 0;
  }

  async setOffset(tenantId: string, offset: number): Promise<void> {
    await this.db('bots').where({ tenant_id: tenantId }).andWhere('poll_offset', '<', offset).update({ poll_offset: offset });
  }

  /** True the first time an update id is seen for the tenant; false for a duplicate delivery. */
  async firstSight(tenantId: string, updateId: number): Promise<boolean> {
    try {
      await this.db('updates_seen').insert({ tenant_id: tenantId, update_id: updateId, seen_at: new Date().toISOString() });
      return true;
    } catch (err) {
      // The primary key refused it.
      if (isUniqueViolation(err)) return false;
      throw err;
    }
  }

  async pruneSeen(before: Date): Promise<void> {
    await this.db('updates_seen').where('seen_at', '<', before.toISOString()).delete();
  }

  async chat(tenantId: string, chatId: string): Promise<Chat | undefined> {
    const row = await this.db('chats').where({ tenant_id: tenantId, chat_id: chatId }).first();
    return row ? toChat(row) : undefined;
  }

  /** Chats with a session, most recent first (the route keeps the live ones), as many as the other bridges list. */
  async chats(tenantId: string, limit = 100): Promise<Chat[]> {
    return (await this.db('chats').where({ tenant_id: tenantId }).whereNotNull('session_id').orderBy('last_activity_at', 'desc').limit(limit)).map(toChat);
  }

  /**
   * A chat seen in an update: created with its default agent, or its title and activity refreshed. Its
   * agent and session are never written here: a turn, /stop and /agent each change only those
   * (setSession, setAgent), so none of them undoes another.
   */
  async seeChat(tenantId: string, chatId: string, title: string, defaultAgentId: string | null): Promise<Chat> {
    const now = new Date().toISOString();
    await this.db('chats').insert({ tenant_id: tenantId, chat_id: chatId, agent_id: defaultAgentId, session_id: null, title, last_activity_at: now })
      .onConflict(['tenant_id', 'chat_id']).merge(title ? { title, last_activity_at: now } : { last_activity_at: now });
    return (await this.chat(tenantId, chatId))!;
  }

  /**
   * The chat's session becomes `sessionId` if the chat still has the session and agent the caller saw (a
   * /stop or /agent meanwhile wins); true when it did.
   */
  async setSession(tenantId: string, chatId: string, expected: Pick<Chat, 'sessionId' | 'agentId'>, sessionId: string | null): Promise<boolean> {
    const q = this.db('chats').where({ tenant_id: tenantId, chat_id: chatId });
    if (expected.sessionId === null) q.whereNull('session_id');
    else q.andWhere({ session_id: expected.sessionId });
    if (expected.agentId === null) q.whereNull('agent_id');
    else q.andWhere({ agent_id: expected.agentId });
    return (await q.update({ session_id: sessionId, last_activity_at: new Date().toISOString() })) > 0;
  }

  /** Another agent for the chat: its session ends here (the next message starts one with the new agent). */
  async setAgent(tenantId: string, chatId: string, agentId: string): Promise<void> {
    await this.db('chats').where({ tenant_id: tenantId, chat_id: chatId }).update({ agent_id: agentId, session_id: null, last_activity_at: new Date().toISOString() });
  }

  async touchChat(tenantId: string, chatId: string): Promise<void> {
    await this.db('chats').where({ tenant_id: tenantId, chat_id: chatId }).update({ last_activity_at: new Date().toISOString() });
  }

  async addPrompt(tenantId: string, prompt: Prompt): Promise<void> {
    await this.db('prompts')
      .insert({ tenant_id: tenantId, chat_id: prompt.chatId, message_id: prompt.messageId, kind: prompt.kind, ref_id: prompt.refId, text: prompt.text, options: JSON.stringify(prompt.options), created_at: new Date().toISOString() })
      .onConflict(['tenant_id', 'chat_id', 'message_id']).ignore();
  }

  async prompt(tenantId: string, chatId: string, messageId: number): Promise<Prompt | undefined> {
    const row = await this.db('prompts').where({ tenant_id: tenantId, chat_id: chatId, message_id: messageId }).first();
    return row ? toPrompt(row) : undefined;
  }

  async promptFor(tenantId: string, kind: Prompt['kind'], refId: string): Promise<Prompt | undefined> {
    const row = await this.db('prompts').where({ tenant_id: tenantId, kind, ref_id: refId }).first();
    return row ? toPrompt(row) : undefined;
  }

  private toBot(row: Record<string, any>): Bot {
    const secrets = JSON.parse(this.sealer.open(row.secrets)) as Record<string, unknown>;
    return {
      tenantId: row.tenant_id,
      botToken: String(secrets.botToken),
      webhookSecret: typeof secrets.webhookSecret === 'string' ? secrets.webhookSecret : null,
      mode: row.mode,
      apiRoot: row.api_root,
      webhookUrl: row.webhook_url,
      defaultAgentId: row.default_agent_id,
      botUsername: row.bot_username,
      pollOffset: Number(row.poll_offset),
      updatedAt: row.updated_at,
    };
  }
}

function toChat(row: Record<string, any>): Chat {
  return { tenantId: row.tenant_id, chatId: row.chat_id, agentId: row.agent_id, sessionId: row.session_id, title: row.title, lastActivityAt: row.last_activity_at };
}

function toPrompt(row: Record<string, any>): Prompt {
  return { chatId: row.chat_id, messageId: Number(row.message_id), kind: row.kind, refId: row.ref_id, text: row.text, options: JSON.parse(row.options) };
}
