// The bridge contract's deliver route for Telegram (docs/bridges-telegram.md): a notification, an owner
// question with a button per option (or a reply to answer it), and question_closed, which edits the
// question's message to say how it closed and removes its buttons. externalId is "<chatId>:<messageId>".
// Everything is queued in the outbox; the notifications delivery id (`key`) is the idempotency key.
import { InlineKeyboard } from 'grammy';
import { RoostError, validationError } from '../../protocol/errors.js';
import { DELIVER_WAIT_MS, withPriority, type DeliverBody } from '../../sdk/bridge/contract.js';
import type { OutboxStatus } from '../../sdk/bridge/outbox.js';
import type { Sender, TelegramOp } from './sender.js';
import type { TelegramStore } from './store.js';

export async function deliver(store: TelegramStore, sender: Sender, tenantId: string, hasTenantBot: boolean, input: DeliverBody): Promise<OutboxStatus> {
  const own = typeof input.channel.botToken === 'string' && input.channel.botToken !== '' ? input.channel.botToken : undefined;
  if (!own && !hasTenantBot) throw new RoostError('CONFLICT', 'no Telegram bot is configured for this tenant (PUT /api/bridges/telegram) and the channel names none');
  const chatValue = input.channel.chatId;
  if ((typeof chatValue !== 'string' && typeof chatValue !== 'number') || chatValue === '') throw validationError('body.channel.chatId is required');
  const chatId = String(chatValue);
  const token = own ? { sealedToken: sender.sealToken(tenantId, own) } : {};
  const options = { waitMs: DELIVER_WAIT_MS, ...(input.key ? { key: `deliver:${tenantId}:${input.key}` } : {}) };
  return sender.queue(tenantId, await opFor(store, tenantId, chatId, input, token), options);
}

async function opFor(store: TelegramStore, tenantId: string, chatId: string, input: DeliverBody, token: { sealedToken?: string }): Promise<TelegramOp> {
  switch (input.kind) {
    case 'notification':
      return { kind: 'send', chatId, text: withPriority(input), ...token };
    case 'question': {
      const { id, options } = input.question!;
      const keyboard = new InlineKeyboard();
      options.forEach((option, i) => keyboard.text(option, `oq:${id}:${i}`).row());
      const text = options.length > 0 ? `Question: ${input.text}` : `Question: ${input.text}\n\nReply to this message to answer.`;
      return { kind: 'send', chatId, text, ...(options.length > 0 ? { keyboard } : {}), prompt: { kind: 'question', refId: id, options }, ...token };
    }
    case 'question_closed': {
      const [refChat, refMessage] = (input.reference ?? '').split(':');
      const messageId = Number(refMessage);
      if (refChat !== chatId || !Number.isSafeInteger(messageId)) return { kind: 'send', chatId, text: input.text, ...token };
      const original = await store.prompt(tenantId, chatId, messageId);
      return { kind: 'edit', chatId, messageId, text: `${original?.text ?? 'Question'}\n\n${input.text}`, fallback: input.text, ...token };
    }
  }
}
