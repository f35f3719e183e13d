// Answers given in a chat: a button under an owner question (oq:<questionId>:<option index>) or an
// approval (ap:<escalationId>:allow|deny), or a text reply to an owner question's message. Owner
// answers go to the notifications extension, approvals to the sessions' escalation queue.
import type { CallbackQuery, Message } from 'grammy/types';
import type { ExtensionContext } from '../_shared/extension.js';
import { say } from './conversation.js';
import type { TelegramStore } from './store.js';
import { apiFor, telegram, type BotAccess } from './telegram-api.js';

export async function answerCallback(bot: BotAccess, queryId: string, text: string): Promise<void> {
  await telegram('answerCallbackQuery', () => apiFor(bot).answerCallbackQuery(queryId, { text })).catch(() => undefined);
}

export async function onCallback(ctx: ExtensionContext, store: TelegramStore, bot: BotAccess, tenantId: string, chatId: string, query: CallbackQuery): Promise<void> {
  const [kind, id, choice] = (query.data ?? '').split(':');
  const prompt = query.message ? await store.prompt(tenantId, chatId, query.message.message_id) : undefined;
  if (!prompt || !id || prompt.refId !== id || (kind === 'oq') !== (prompt.kind === 'question')) return answerCallback(bot, query.id, 'This button is not valid any more');
  const who = responder(query.from);
  if (prompt.kind === 'question') {
    const answer = prompt.options[Number(choice)];
    if (answer === undefined) return answerCallback(bot, query.id, 'Unknown option');
    const outcome = await answerQuestion(ctx, tenantId, id, answer, who);
    return answerCallback(bot, query.id, outcome);
  }
  if (choice !== 'allow' && choice !== 'deny') return answerCallback(bot, query.id, 'Unknown choice');
  const res = await ctx.host.call<{ error?: string }>('POST', `/api/escalation-queue/${encodeURIComponent(id)}/resolve`, { behavior: choice }, { tenantId });
  if (res.status === 200) {
    await telegram('editMessageText', () => apiFor(bot).editMessageText(chatId, prompt.messageId, `${prompt.text}\n\n${choice === 'allow' ? 'Allowed' : 'Denied'} by ${who}`)).catch(() => undefined);
    return answerCallback(bot, query.id, choice === 'allow' ? 'Allowed' : 'Denied');
  }
  return answerCallback(bot, query.id, res.status === 409 ? 'This request was already resolved' : `Could not resolve it: ${res.body?.error ?? res.status}`);
}

/** A text reply to one of our owner-question messages answers it; false when the message is not one. */
export async function onReplyToPrompt(ctx: ExtensionContext, store: TelegramStore, bot: BotAccess, tenantId: string, chatId: string, message: Message): Promise<boolean> {
  const prompt = await store.prompt(tenantId, chatId, message.reply_to_message!.message_id);
  if (!prompt || prompt.kind !== 'question') return false;
  await say(bot, chatId, await answerQuestion(ctx, tenantId, prompt.refId, message.text!.trim(), responder(message.from)));
  return true;
}

async function answerQuestion(ctx: ExtensionContext, tenantId: string, questionId: string, answer: string, who: string): Promise<string> {
  const res = await ctx.host.call<{ error?: string; code?: string }>('POST', `/api/internal/owner-questions/${encodeURIComponent(questionId)}/answer`, { answer, channel: 'telegram', responder: who }, { tenantId });
  if (res.status === 200) return `Answer recorded: ${answer}`;
  if (res.status === 409) return 'This question is already closed';
  if (res.status === 404 && res.body?.code === 'ROUTE_NOT_FOUND') return 'Owner questions are not available (the notifications extension is not loaded)';
  return `Could not record the answer: ${res.body?.error ?? res.status}`;
}

function responder(from: { username?: string; first_name?: string; id: number } | undefined): string {
  if (!from) return 'telegram user';
  return from.username ? `@${from.username}` : `${from.first_name ?? 'user'} (${from.id})`;
}
