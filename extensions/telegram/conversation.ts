// A chat's conversation with its agent: a message starts a session for the chat's agent (or adds a
// turn to the chat's session), and the answer is sent back. One turn at a time per chat, in the
// background: neither a slow agent nor a Telegram outage holds up the updates of other chats. While a
// turn waits, approvals the session put on the escalation queue are shown with Allow/Deny buttons.
import { InlineKeyboard } from 'grammy';
import { askAgent, waitForReply } from '../_shared/agent-reply.js';
import type { ExtensionContext } from '../_shared/extension.js';
import { apiFor, telegram, type BotAccess } from './telegram-api.js';
import type { Chat, TelegramStore } from './store.js';

const REPLY_TIMEOUT_MS = 10 * 60_000;
const ESCALATION_POLL_MS = 1_000;
/** Telegram's limit for one message. */
const MAX_TEXT = 4096;

export class Conversations {
  private readonly turns = new Map<string, Promise<void>>();

  constructor(private readonly ctx: ExtensionContext, private readonly store: TelegramStore) {}

  /** Queues the message behind the chat's current turn. */
  post(bot: BotAccess, chat: Chat, text: string): void {
    const key = `${chat.tenantId}\n${chat.chatId}`;
    const previous = this.turns.get(key) ?? Promise.resolve();
    const next = previous.then(() => this.turn(bot, chat.tenantId, chat.chatId, text)).catch((err) => this.ctx.host.log('warn', `telegram: chat ${chat.chatId}: ${(err as Error).message}`));
    this.turns.set(key, next);
    void next.finally(() => {
      if (this.turns.get(key) === next) this.turns.delete(key);
    });
  }

  private async turn(bot: BotAccess, tenantId: string, chatId: string, text: string): Promise<void> {
    const as = { tenantId };
    const chat = (await this.store.chat(tenantId, chatId))!;
    if (!chat.agentId) {
      await say(bot, chatId, 'No agent is set for this chat yet: send /agent <name>.');
      return;
    }
    await telegram('sendChatAction', () => apiFor(bot).sendChatAction(chatId, 'typing')).catch(() => undefined);
    const stopWatching = new AbortController();
    const watch = (sessionId: string) => void this.watchApprovals(bot, tenantId, chatId, sessionId, stopWatching.signal);
    try {
      let reply: { sessionId: string; text: string } | undefined;
      if (chat.sessionId) {
        watch(chat.sessionId);
        try {
          reply = await askAgent(this.ctx.host, as, { agentId: chat.agentId, sessionId: chat.sessionId, prompt: text, timeoutMs: REPLY_TIMEOUT_MS });
        } catch (err) {
          // A session that is gone or finished: the message starts a new one instead.
          const code = (err as { code?: string }).code;
          if (code !== 'NOT_FOUND' && code !== 'CONFLICT') throw err;
        }
      }
      if (!reply) {
        const started = await this.ctx.host.call<{ id?: string; error?: string }>('POST', '/api/sessions', { agentId: chat.agentId, initialPrompt: text, name: `Telegram ${chat.title || chatId}`.slice(0, 200) }, as);
        if (started.status !== 201 || !started.body?.id) throw new Error(`starting a session failed: ${started.body?.error ?? started.status}`);
        const sessionId = started.body.id;
        await this.store.saveChat({ ...chat, sessionId, lastActivityAt: new Date().toISOString() });
        watch(sessionId);
        reply = await waitForReply(this.ctx.host, as, sessionId, 0, { timeoutMs: REPLY_TIMEOUT_MS });
      }
      await this.store.saveChat({ ...chat, sessionId: reply.sessionId, lastActivityAt: new Date().toISOString() });
      await say(bot, chatId, reply.text || '(the agent answered with no text)');
    } catch (err) {
      await say(bot, chatId, `Sorry, that did not work: ${(err as Error).message}`).catch(() => undefined);
    } finally {
      stopWatching.abort();
    }
  }

  /** Shows each pending escalation of the session once, with Allow/Deny buttons, until the turn ends. */
  private async watchApprovals(bot: BotAccess, tenantId: string, chatId: string, sessionId: string, signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        const res = await this.ctx.host.call<{ entries?: Array<{ id: string; toolName: string; input: unknown }> }>('GET', `/api/escalation-queue?sessionId=${encodeURIComponent(sessionId)}`, undefined, { tenantId });
        for (const entry of res.body?.entries ?? []) {
          if (await this.store.promptFor(tenantId, 'approval', entry.id)) continue;
          const text = `Approval needed: the agent wants to use ${entry.toolName}\n${JSON.stringify(entry.input).slice(0, 1_000)}`;
          const keyboard = new InlineKeyboard().text('Allow', `ap:${entry.id}:allow`).text('Deny', `ap:${entry.id}:deny`);
          const sent = await telegram('sendMessage', () => apiFor(bot).sendMessage(chatId, text, { reply_markup: keyboard }));
          await this.store.addPrompt(tenantId, { chatId, messageId: sent.message_id, kind: 'approval', refId: entry.id, text, options: ['allow', 'deny'] });
        }
      } catch (err) {
        this.ctx.host.log('warn', `telegram: watching approvals of ${sessionId}: ${(err as Error).message}`);
      }
      await new Promise((resolve) => setTimeout(resolve, ESCALATION_POLL_MS));
    }
  }
}

/** Sends text to a chat, split at Telegram's message size. */
export async function say(bot: BotAccess, chatId: string, text: string): Promise<number> {
  let last = 0;
  for (let i = 0; i < Math.max(text.length, 1); i += MAX_TEXT) {
    last = (await telegram('sendMessage', () => apiFor(bot).sendMessage(chatId, text.slice(i, i + MAX_TEXT)))).message_id;
  }
  return last;
}
