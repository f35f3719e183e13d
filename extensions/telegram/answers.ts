// Answers given in a chat: a button under an owner question (oq:<questionId>:<option index>) or an
// approval (ap:<escalationId>:allow|deny), or a text reply to an owner question's message. Owner
// answers go to the notifications extension, approvals to the sessions' escalation queue. Telegram's
// acknowledgement of a press is not waited for (an outage must not hold up other updates); messages go
// through the outbox. A press that could not be settled leaves the buttons for another try.
import type { CallbackQuery, Message } from 'grammy/types';
import { settleEscalation } from '../../sdk/bridge/escalations.js';
import { answerOwnerQuestion } from '../notifications/contract.js';
import type { ExtensionContext } from '../../sdk/extension.js';
import type { Sender } from './sender.js';
import type { TelegramStore } from './store.js';
import { apiFor, telegram, type BotAccess } from './telegram-api.js';

export function answerCallback(bot: BotAccess, queryId: string, text: string): void {
  void telegram('answerCallbackQuery', () => apiFor(bot).answerCallbackQuery(queryId, { text: text.slice(0, 200) })).catch(() => undefined);
}

export async function onCallback(ctx: ExtensionContext, store: TelegramStore, sender: Sender, bot: BotAccess, tenantId: string, chatId: string, query: CallbackQuery): Promise<void> {
  const [kind, id, choice] = (query.data ?? '').split(':');
  const prompt = query.message ? await store.prompt(tenantId, chatId, query.message.message_id) : undefined;
  if (!prompt || !id || prompt.refId !== id || (kind === 'oq') !== (prompt.kind === 'question')) return answerCallback(bot, query.id, 'This button is not valid any more');
  const who = responder(query.from);
  if (prompt.kind === 'question') {
    const answer = prompt.options[Number(choice)];
    if (answer === undefined) return answerCallback(bot, query.id, 'Unknown option');
    const outcome = await answerOwnerQuestion(ctx.host, tenantId, id, answer, 'telegram', who);
    return answerCallback(bot, query.id, outcome.accepted ? `Answer recorded: ${answer}` : outcome.text);
  }
  if (choice !== 'allow' && choice !== 'deny') return answerCallback(bot, query.id, 'Unknown choice');
  const outcome = await settleEscalation(ctx.host, tenantId, id, choice, who);
  if (outcome.final) {
    const text = `${prompt.text}\n\n${outcome.text}`;
    await sender.queue(tenantId, { kind: 'edit', chatId, messageId: prompt.messageId, text, fallback: outcome.text });
  }
  answerCallback(bot, query.id, outcome.text);
}

/** A text reply to one of our owner-question messages answers it; false when the message is not one. */
export async function onReplyToPrompt(ctx: ExtensionContext, store: TelegramStore, sender: Sender, tenantId: string, chatId: string, message: Message): Promise<boolean> {
  const prompt = await store.prompt(tenantId, chatId, message.reply_to_message!.message_id);
  if (!prompt || prompt.kind !== 'question') return false;
  const outcome = await answerOwnerQuestion(ctx.host, tenantId, prompt.refId, message.text!.trim(), 'telegram', responder(message.from));
  await sender.say(tenantId, chatId, outcome.accepted ? `Answer recorded: ${message.text!.trim()}` : outcome.text);
  return true;
}

function responder(from: { username?: string; first_name?: string; id: number } | undefined): string {
  if (!from) return 'telegram user';
  return from.username ? `@${from.username}` : `${from.first_name ?? 'user'} (${from.id})`;
}
