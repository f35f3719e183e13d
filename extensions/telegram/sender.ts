// Everything the bot sends goes through the bridge's outbox (sdk/bridge/outbox.ts): paced
// per chat (Telegram allows about one message a second in a chat), retried with backoff through an
// outage, in order per chat. Nothing that handles an update waits for Telegram: a reply is queued and
// the update handled. A text longer than one Telegram message is queued as several.
import type { InlineKeyboardMarkup } from 'grammy/types';
import { RoostError } from '../../protocol/errors.js';
import { BridgeOutbox, type OutboxRow, type OutboxStatus } from '../../sdk/bridge/outbox.js';
import type { WakeFlags } from '../../sdk/bridge/wake.js';
import type { ExtensionContext } from '../../sdk/extension.js';
import type { Sealer } from '../../sdk/sealed.js';
import type { Prompt, TelegramStore } from './store.js';
import { apiFor, botOf, telegram, type BotAccess } from './telegram-api.js';

/** Telegram's limit for one message. */
export const MAX_TEXT = 4096;

export type TelegramOp =
  | { kind: 'send'; chatId: string; text: string; keyboard?: InlineKeyboardMarkup; prompt?: Pick<Prompt, 'kind' | 'refId' | 'options'>; sealedToken?: string }
  /** Edits a message's text (its buttons go); one that cannot be edited any more is said in a new message. */
  | { kind: 'edit'; chatId: string; messageId: number; text: string; fallback: string; sealedToken?: string };

export interface QueueOptions {
  waitMs?: number;
  key?: string;
  keyWindowMs?: number;
}

export class Sender {
  readonly outbox: BridgeOutbox<TelegramOp>;

  constructor(private readonly ctx: ExtensionContext, private readonly store: TelegramStore, private readonly sealer: Sealer, wake: WakeFlags, retryBaseMs: number, paceMs: number) {
    this.outbox = new BridgeOutbox(ctx, ctx.db, wake, (row) => this.send(row), { retryBaseMs, maxAttempts: 12, paceMs });
  }

  /** Queues text for a chat, split at Telegram's message size; answers the status of its last part. */
  async say(tenantId: string, chatId: string, text: string, options: QueueOptions = {}): Promise<OutboxStatus> {
    const parts: string[] = [];
    for (let i = 0; i < Math.max(text.length, 1); i += MAX_TEXT) parts.push(text.slice(i, i + MAX_TEXT));
    let status: OutboxStatus | undefined;
    for (const [i, part] of parts.entries()) {
      const last = i === parts.length - 1;
      status = await this.queue(tenantId, { kind: 'send', chatId, text: part }, { ...options, waitMs: last ? options.waitMs : 0, ...(options.key ? { key: `${options.key}:${i}` } : {}) });
    }
    return status!;
  }

  async queue(tenantId: string, op: TelegramOp, options: QueueOptions = {}): Promise<OutboxStatus> {
    return this.outbox.submit(tenantId, `${tenantId}:${op.chatId}`, op, { waitMs: options.waitMs ?? 0, ...(options.key ? { key: options.key } : {}), ...(options.keyWindowMs ? { keyWindowMs: options.keyWindowMs } : {}) });
  }

  /** A channel's own bot token, kept sealed in the outbox row. */
  sealToken(tenantId: string, token: string): string {
    return this.sealer.seal(token, `telegram-outbox\0${tenantId}`);
  }

  private async botFor(row: OutboxRow<TelegramOp>): Promise<BotAccess> {
    const tenantBot = await botOf(this.store, this.ctx, row.tenantId);
    if (row.op.sealedToken) {
      const botToken = this.sealer.open(row.op.sealedToken, `telegram-outbox\0${row.tenantId}`);
      return { botToken, apiRoot: tenantBot?.apiRoot ?? null, reach: tenantBot?.reach ?? 'public' };
    }
    if (!tenantBot) throw new RoostError('CONFLICT', 'no Telegram bot is configured for this tenant (PUT /api/bridges/telegram)');
    return tenantBot;
  }

  /** Sends one outbox row; answers "<chatId>:<messageId>". */
  private async send(row: OutboxRow<TelegramOp>): Promise<string> {
    const op = row.op;
    const bot = await this.botFor(row);
    if (op.kind === 'edit') {
      try {
        await telegram('editMessageText', () => apiFor(bot).editMessageText(op.chatId, op.messageId, op.text));
        return `${op.chatId}:${op.messageId}`;
      } catch (err) {
        const description = String((err as RoostError).details && ((err as RoostError).details as { description?: string }).description);
        // Already showing this text (a second close of one message): done.
        if (/message is not modified/i.test(description)) return `${op.chatId}:${op.messageId}`;
        const code = ((err as RoostError).details as { telegramCode?: number } | undefined)?.telegramCode;
        // Telegram is down or refusing for now: try again later. The message cannot be edited (deleted, too old): say it anew.
        if (code !== 400) throw err;
        const sent = await telegram('sendMessage', () => apiFor(bot).sendMessage(op.chatId, op.fallback));
        return `${op.chatId}:${sent.message_id}`;
      }
    }
    const sent = await telegram('sendMessage', () => apiFor(bot).sendMessage(op.chatId, op.text, op.keyboard ? { reply_markup: op.keyboard } : {}));
    if (op.prompt) {
      // The message is out: a failure to remember what it asks must not send it again.
      await this.store.addPrompt(row.tenantId, { chatId: op.chatId, messageId: sent.message_id, text: op.text, ...op.prompt })
        .catch((err: Error) => this.ctx.host.log('error', `telegram: recording the prompt of ${op.chatId}:${sent.message_id} failed: ${err.message}`));
    }
    return `${op.chatId}:${sent.message_id}`;
  }
}
