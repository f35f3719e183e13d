// The bridge contract's deliver route for Telegram (docs/bridges-telegram.md): a notification, an owner
// question with a button per option (or a reply to answer it), and question_closed, which edits the
// question's message to say how it closed and removes its buttons. externalId is "<chatId>:<messageId>".
import { InlineKeyboard } from 'grammy';
import { RoostError, validationError } from '../../protocol/errors.js';
import { say } from './conversation.js';
import type { TelegramStore } from './store.js';
import { apiFor, telegram, type BotAccess } from './telegram-api.js';

export interface DeliverInput {
  kind: 'notification' | 'question' | 'question_closed';
  channel: { type: 'telegram'; chatId?: string | number; botToken?: string };
  text: string;
  priority?: 'low' | 'normal' | 'high' | 'urgent';
  question?: { id: string; options: string[] };
  reference?: string;
}

const MARK: Record<string, string> = { high: '[high] ', urgent: '[URGENT] ' };

export async function deliver(store: TelegramStore, tenantId: string, tenantBot: BotAccess | undefined, input: DeliverInput): Promise<string> {
  const bot = input.channel.botToken ? { botToken: input.channel.botToken, apiRoot: tenantBot?.apiRoot ?? null } : tenantBot;
  if (!bot) throw new RoostError('CONFLICT', 'no Telegram bot is configured for this tenant (PUT /api/bridges/telegram) and the channel names none');
  if (input.channel.chatId === undefined || input.channel.chatId === '') throw validationError('channel.chatId is required');
  const chatId = String(input.channel.chatId);
  switch (input.kind) {
    case 'notification':
      return `${chatId}:${await say(bot, chatId, `${MARK[input.priority ?? ''] ?? ''}${input.text}`)}`;
    case 'question': {
      if (!input.question) throw validationError('question is required for kind question');
      const options = input.question.options;
      const keyboard = new InlineKeyboard();
      options.forEach((option, i) => keyboard.text(option, `oq:${input.question!.id}:${i}`).row());
      const text = options.length > 0 ? `Question: ${input.text}` : `Question: ${input.text}\n\nReply to this message to answer.`;
      const sent = await telegram('sendMessage', () => apiFor(bot).sendMessage(chatId, text, options.length > 0 ? { reply_markup: keyboard } : {}));
      await store.addPrompt(tenantId, { chatId, messageId: sent.message_id, kind: 'question', refId: input.question.id, text, options });
      return `${chatId}:${sent.message_id}`;
    }
    case 'question_closed': {
      const [refChat, refMessage] = (input.reference ?? '').split(':');
      const messageId = Number(refMessage);
      if (refChat !== chatId || !Number.isSafeInteger(messageId)) return `${chatId}:${await say(bot, chatId, input.text)}`;
      const original = await store.prompt(tenantId, chatId, messageId);
      const text = `${original?.text ?? 'Question'}\n\n${input.text}`;
      try {
        await telegram('editMessageText', () => apiFor(bot).editMessageText(chatId, messageId, text));
        return `${chatId}:${messageId}`;
      } catch {
        // The message cannot be edited any more (deleted, too old): say it in a new one.
        return `${chatId}:${await say(bot, chatId, input.text)}`;
      }
    }
  }
}
