// A fake Telegram Bot API on loopback for the real grammy client (its `client.apiRoot` pointed here):
// POST /bot<token>/<method> with the real response envelope {ok, result} / {ok:false, error_code,
// description}. Updates pushed by a test are served to getUpdates (long polling, honouring offset and
// timeout) or, once setWebhook named a URL, POSTed there with X-Telegram-Bot-Api-Secret-Token.
import type { ServerResponse } from 'node:http';
import { sendJson, startFakeServer, wait, type FakeServer, type RecordedRequest } from './provider-http.js';

export interface SentMessage {
  chat_id: number | string;
  message_id: number;
  text: string;
  reply_markup?: any;
  reply_to_message_id?: number;
}

export interface FakeTelegram extends FakeServer {
  token: string;
  /** Every API call the bot made, in order. */
  calls: Array<{ method: string; body: any }>;
  sent: SentMessage[];
  edits: Array<{ chat_id: number | string; message_id: number; text: string }>;
  callbackAnswers: Array<{ callback_query_id: string; text?: string }>;
  /** The update ids getUpdates handed to the bot, in order (a redelivered one appears twice). */
  served: number[];
  webhook: { url: string; secret?: string } | null;
  /** Queues an update (update_id assigned unless given); in webhook mode posts it and returns the status. */
  push(update: Record<string, unknown>): Promise<number | null>;
  /**
   * Serves an update already delivered once more, whatever offset the bot confirmed: Telegram does this
   * when it did not see the confirmation (or posts a webhook update again after a failed answer).
   */
  redeliver(updateId: number): Promise<number | null>;
  /** A text message from a user in a private chat. */
  message(chatId: number, text: string, extra?: Record<string, unknown>): Record<string, unknown>;
  /** While true, every API call answers 502 (an outage). */
  down: boolean;
}

export async function startFakeTelegram(token = '123456:TEST-token'): Promise<FakeTelegram> {
  const queue: Array<Record<string, any>> = [];
  const pushed = new Map<number, Record<string, any>>();
  /** Updates served again regardless of the offset (redeliver). */
  const again: Array<Record<string, any>> = [];
  let nextUpdateId = 1000;
  let nextMessageId = 1;
  let wakeUp: (() => void) | undefined;
  const fake: Partial<FakeTelegram> = { token, calls: [], sent: [], edits: [], callbackAnswers: [], served: [], webhook: null, down: false };
  // The handler and push read and write the returned object itself, so tests see every change.
  let self = fake as FakeTelegram;

  const server = await startFakeServer(async (req: RecordedRequest, res: ServerResponse, closed: AbortSignal) => {
    const match = /^\/bot([^/]+)\/(\w+)$/.exec(req.path);
    if (!match) return sendJson(res, 404, { ok: false, error_code: 404, description: 'Not Found' });
    if (match[1] !== token) return sendJson(res, 401, { ok: false, error_code: 401, description: 'Unauthorized' });
    const method = match[2]!;
    const body = (typeof req.body === 'object' && req.body) || {};
    self.calls!.push({ method, body });
    if (self.down) return sendJson(res, 502, { ok: false, error_code: 502, description: 'Bad Gateway' });
    const ok = (result: unknown) => sendJson(res, 200, { ok: true, result });
    switch (method) {
      case 'getMe':
        return ok({ id: 123456, is_bot: true, first_name: 'Roost Test', username: 'roost_test_bot', can_join_groups: true, can_read_all_group_messages: false, supports_inline_queries: false });
      case 'getUpdates': {
        if (self.webhook) return sendJson(res, 409, { ok: false, error_code: 409, description: "Conflict: can't use getUpdates method while webhook is active" });
        const offset = Number(body.offset ?? 0);
        const deadline = Date.now() + Math.min(Number(body.timeout ?? 0), 30) * 1000;
        for (;;) {
          const ready = [...again, ...queue.filter((u) => u.update_id >= offset)];
          if (ready.length > 0 || Date.now() >= deadline || closed.aborted) {
            again.length = 0;
            const batch = ready.slice(0, Number(body.limit ?? 100));
            self.served!.push(...batch.map((u) => u.update_id));
            return ok(batch);
          }
          await Promise.race([wait(deadline - Date.now(), closed), new Promise<void>((resolve) => (wakeUp = resolve))]);
        }
      }
      case 'sendMessage': {
        const message: SentMessage = { chat_id: body.chat_id, message_id: nextMessageId++, text: body.text, reply_markup: body.reply_markup, reply_to_message_id: body.reply_parameters?.message_id ?? body.reply_to_message_id };
        self.sent!.push(message);
        return ok({ message_id: message.message_id, date: Math.floor(Date.now() / 1000), chat: { id: Number(body.chat_id), type: 'private' }, text: body.text });
      }
      case 'editMessageText':
        self.edits!.push({ chat_id: body.chat_id, message_id: Number(body.message_id), text: body.text });
        return ok({ message_id: Number(body.message_id), date: Math.floor(Date.now() / 1000), chat: { id: Number(body.chat_id), type: 'private' }, text: body.text });
      case 'answerCallbackQuery':
        self.callbackAnswers!.push({ callback_query_id: body.callback_query_id, text: body.text });
        return ok(true);
      case 'setWebhook':
        self.webhook = { url: body.url, ...(body.secret_token ? { secret: body.secret_token } : {}) };
        return ok(true);
      case 'deleteWebhook':
        self.webhook = null;
        return ok(true);
      case 'sendChatAction':
        return ok(true);
      default:
        return sendJson(res, 404, { ok: false, error_code: 404, description: `Not Found: method ${method} not found` });
    }
  });

  self = Object.assign(server, fake, {
    async push(update: Record<string, unknown>) {
      const full = { update_id: nextUpdateId++, ...update } as { update_id: number };
      nextUpdateId = Math.max(nextUpdateId, full.update_id + 1);
      pushed.set(full.update_id, full);
      if (self.webhook) {
        const res = await fetch(self.webhook.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(self.webhook.secret ? { 'x-telegram-bot-api-secret-token': self.webhook.secret } : {}) },
          body: JSON.stringify(full),
        });
        await res.text();
        return res.status;
      }
      queue.push(full);
      wakeUp?.();
      return null;
    },
    async redeliver(updateId: number) {
      const update = pushed.get(updateId);
      if (!update) throw new Error(`update ${updateId} was never pushed`);
      if (self.webhook) return self.push(update);
      again.push(update);
      wakeUp?.();
      return null;
    },
    message(chatId: number, text: string, extra: Record<string, unknown> = {}) {
      return { message: { message_id: nextMessageId++, date: Math.floor(Date.now() / 1000), chat: { id: chatId, type: 'private', first_name: 'Owner' }, from: { id: chatId, is_bot: false, first_name: 'Owner', username: 'owner' }, text, ...extra } };
    },
  }) as FakeTelegram;
  return self;
}
