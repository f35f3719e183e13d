// One Telegram update, however it arrived (long polling or the webhook): seen once only (update ids are
// stored), rate-limited per chat, then a slash command, an answer (a button press or a reply to a
// question), or a message for the chat's agent.
import type { CallbackQuery, Message, Update } from 'grammy/types';
import type { ExtensionContext } from '../_shared/extension.js';
import { answerCallback, onCallback, onReplyToPrompt } from './answers.js';
import { runCommand } from './commands.js';
import { Conversations, say } from './conversation.js';
import { ChatRateLimit } from './rate-limit.js';
import type { Chat, TelegramStore } from './store.js';
import type { BotAccess } from './telegram-api.js';

export class UpdateHandler {
  readonly conversations: Conversations;
  private readonly limit: ChatRateLimit;

  constructor(private readonly ctx: ExtensionContext, private readonly store: TelegramStore, perMinute: number) {
    this.conversations = new Conversations(ctx, store);
    this.limit = new ChatRateLimit(perMinute);
  }

  /** Never throws for a bad update: it is logged, so one update cannot stall the ones behind it. */
  async handle(tenantId: string, bot: BotAccess & { defaultAgentId?: string | null }, update: Update): Promise<void> {
    if (!Number.isSafeInteger(update.update_id)) return;
    if (!(await this.store.firstSight(tenantId, update.update_id))) return;
    try {
      if (update.callback_query) await this.callback(tenantId, bot, update.callback_query);
      else if (update.message?.text) await this.message(tenantId, bot, update.message);
    } catch (err) {
      this.ctx.host.log('warn', `telegram: update ${update.update_id}: ${(err as Error).message}`);
    }
  }

  private async callback(tenantId: string, bot: BotAccess, query: CallbackQuery): Promise<void> {
    const chatId = query.message ? String(query.message.chat.id) : undefined;
    if (!chatId || !this.limit.take(chatId)) return answerCallback(bot, query.id, 'Too many requests: try again in a moment');
    await onCallback(this.ctx, this.store, bot, tenantId, chatId, query);
  }

  private async message(tenantId: string, bot: BotAccess & { defaultAgentId?: string | null }, message: Message): Promise<void> {
    const chatId = String(message.chat.id);
    const text = message.text!.trim();
    if (!this.limit.take(chatId)) {
      if (this.limit.warnOnce(chatId)) await say(bot, chatId, 'Too many messages: wait a minute before sending more.');
      return;
    }
    const chat = await this.chatOf(tenantId, chatId, message, bot.defaultAgentId ?? null);
    if (message.reply_to_message && (await onReplyToPrompt(this.ctx, this.store, bot, tenantId, chatId, message))) return;
    if (text.startsWith('/')) return runCommand(this.ctx, this.store, bot, chat, text);
    this.conversations.post(bot, chat, text);
  }

  private async chatOf(tenantId: string, chatId: string, message: Message, defaultAgentId: string | null): Promise<Chat> {
    const now = new Date().toISOString();
    const known = await this.store.chat(tenantId, chatId);
    const title = message.chat.type === 'private' ? [message.chat.first_name, message.chat.last_name].filter(Boolean).join(' ') || (message.chat.username ?? '') : (message.chat.title ?? '');
    const chat: Chat = known ? { ...known, title: title || known.title, lastActivityAt: now } : { tenantId, chatId, agentId: defaultAgentId, sessionId: null, title, lastActivityAt: now };
    await this.store.saveChat(chat);
    return chat;
  }
}
