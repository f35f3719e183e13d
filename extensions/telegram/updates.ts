// One Telegram update, however it arrived (long polling or the webhook): seen once only (update ids are
// stored), rate-limited per chat, then a slash command, an answer (a button press or a reply to a
// question), or a message for the chat's agent. Nothing here waits for Telegram itself (replies are
// queued in the outbox), and a chat's work runs in the background, so one chat never holds up another.
import type { CallbackQuery, Message, Update } from 'grammy/types';
import { InboundLimit } from '../../sdk/bridge/limits.js';
import { KeyedSerial } from '../../sdk/bridge/serial.js';
import type { ExtensionContext } from '../../sdk/extension.js';
import { answerCallback, onCallback, onReplyToPrompt } from './answers.js';
import { runCommand } from './commands.js';
import { Conversations } from './conversation.js';
import type { Sender } from './sender.js';
import type { TelegramStore } from './store.js';
import type { BotAccess } from './telegram-api.js';

export class UpdateHandler {
  readonly conversations: Conversations;
  private readonly limit: InboundLimit;
  /** Commands and answers of one chat, in order, beside (not behind) its agent's turn. */
  private readonly control = new KeyedSerial();

  constructor(private readonly ctx: ExtensionContext, private readonly store: TelegramStore, private readonly sender: Sender, perMinute: number) {
    this.conversations = new Conversations(ctx, store, sender);
    this.limit = new InboundLimit(perMinute);
  }

  /** Never throws: a bad update or a failing database is logged, so one update cannot stall the ones behind it. */
  async handle(tenantId: string, bot: BotAccess & { defaultAgentId?: string | null }, update: Update): Promise<void> {
    try {
      if (!Number.isSafeInteger(update.update_id)) return;
      if (!(await this.store.firstSight(tenantId, update.update_id))) return;
      if (update.callback_query) this.callback(tenantId, bot, update.callback_query);
      else if (update.message?.text) await this.message(tenantId, bot, update.message);
    } catch (err) {
      this.ctx.host.log('warn', `telegram: update ${update.update_id}: ${(err as Error).message}`);
    }
  }

  private callback(tenantId: string, bot: BotAccess, query: CallbackQuery): void {
    const chatId = query.message ? String(query.message.chat.id) : undefined;
    if (!chatId || !this.limit.take(`${tenantId}:${chatId}`)) return answerCallback(bot, query.id, 'Too many requests: try again in a moment');
    this.inBackground(tenantId, chatId, () => onCallback(this.ctx, this.store, this.sender, bot, tenantId, chatId, query));
  }

  private async message(tenantId: string, bot: BotAccess & { defaultAgentId?: string | null }, message: Message): Promise<void> {
    const chatId = String(message.chat.id);
    const text = message.text!.trim();
    const key = `${tenantId}:${chatId}`;
    if (!this.limit.take(key)) {
      if (this.limit.warnOnce(key)) await this.sender.say(tenantId, chatId, 'Too many messages: wait a minute before sending more.');
      return;
    }
    const title = message.chat.type === 'private' ? [message.chat.first_name, message.chat.last_name].filter(Boolean).join(' ') || (message.chat.username ?? '') : (message.chat.title ?? '');
    const chat = await this.store.seeChat(tenantId, chatId, title, bot.defaultAgentId ?? null);
    if (message.reply_to_message || text.startsWith('/')) {
      this.inBackground(tenantId, chatId, async () => {
        if (message.reply_to_message && (await onReplyToPrompt(this.ctx, this.store, this.sender, tenantId, chatId, message))) return;
        if (text.startsWith('/')) return runCommand(this.ctx, this.store, this.sender, chat, text);
        this.conversations.post(bot, tenantId, chatId, text);
      });
      return;
    }
    this.conversations.post(bot, tenantId, chatId, text);
  }

  private inBackground(tenantId: string, chatId: string, work: () => Promise<void>): void {
    void this.control.run(`${tenantId}\n${chatId}`, work).catch((err) => this.ctx.host.log('warn', `telegram: chat ${chatId}: ${(err as Error).message}`));
  }
}
