// A chat's conversation with its agent: a message starts a session for the chat's agent (or adds a
// turn to the chat's session), and the answer is queued for the chat. One turn at a time per chat, in
// the background: neither a slow agent nor a Telegram outage holds up the updates of other chats (the
// answer waits in the outbox, not the turn). While a turn waits, approvals the session put on the
// escalation queue are shown with Allow/Deny buttons. A turn changes only the chat's session, and only
// if nobody else did meanwhile (/stop, /agent).
import { InlineKeyboard } from 'grammy';
import { askAgent, waitForReply } from '../sessions/contract-reply.js';
import { KeyedSerial } from '../../sdk/bridge/serial.js';
import type { ExtensionContext } from '../../sdk/extension.js';
import type { Sender } from './sender.js';
import type { TelegramStore } from './store.js';
import { apiFor, telegram, type BotAccess } from './telegram-api.js';
import { sessionsClient } from '../sessions/contract.js';

const REPLY_TIMEOUT_MS = 10 * 60_000;
const ESCALATION_POLL_MS = 1_000;

export class Conversations {
  private readonly serial = new KeyedSerial();

  constructor(private readonly ctx: ExtensionContext, private readonly store: TelegramStore, private readonly sender: Sender) {}

  /** Queues the message behind the chat's current turn. */
  post(bot: BotAccess, tenantId: string, chatId: string, text: string): void {
    void this.serial.run(`${tenantId}\n${chatId}`, () => this.turn(bot, tenantId, chatId, text))
      .catch((err) => this.ctx.host.log('warn', `telegram: chat ${chatId}: ${(err as Error).message}`));
  }

  private async turn(bot: BotAccess, tenantId: string, chatId: string, text: string): Promise<void> {
    const as = { tenantId };
    const say = (message: string) => this.sender.say(tenantId, chatId, message);
    const chat = (await this.store.chat(tenantId, chatId))!;
    if (!chat.agentId) {
      await say('No agent is set for this chat yet: send /agent <name>.');
      return;
    }
    // Best effort, and not worth waiting for: the typing hint.
    void telegram('sendChatAction', () => apiFor(bot).sendChatAction(chatId, 'typing')).catch(() => undefined);
    const stopWatching = new AbortController();
    const watch = (sessionId: string) => void this.watchApprovals(tenantId, chatId, sessionId, stopWatching.signal);
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
        const started = await sessionsClient(this.ctx.host, as).create({ agentId: chat.agentId, initialPrompt: text, name: `Telegram ${chat.title || chatId}`.slice(0, 200) });
        if (started.status !== 201 || !started.body?.id) throw new Error(`starting a session failed: ${started.body?.error ?? started.status}`);
        const sessionId = started.body.id;
        await this.store.setSession(tenantId, chatId, chat, sessionId);
        watch(sessionId);
        reply = await waitForReply(this.ctx.host, as, sessionId, 0, { timeoutMs: REPLY_TIMEOUT_MS });
      } else {
        await this.store.touchChat(tenantId, chatId);
      }
      await say(reply.text || '(the agent answered with no text)');
    } catch (err) {
      await say(`Sorry, that did not work: ${(err as Error).message}`).catch(() => undefined);
    } finally {
      stopWatching.abort();
    }
  }

  /** Shows each pending escalation of the session once, with Allow/Deny buttons, until the turn ends. */
  private async watchApprovals(tenantId: string, chatId: string, sessionId: string, signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        const res = await sessionsClient(this.ctx.host, { tenantId }).escalations({ sessionId });
        for (const entry of res.body?.entries ?? []) {
          if (await this.store.promptFor(tenantId, 'approval', entry.id)) continue;
          const text = `Approval needed: the agent wants to use ${entry.toolName}\n${JSON.stringify(entry.input).slice(0, 1_000)}`;
          const keyboard = new InlineKeyboard().text('Allow', `ap:${entry.id}:allow`).text('Deny', `ap:${entry.id}:deny`);
          await this.sender.queue(tenantId, { kind: 'send', chatId, text, keyboard, prompt: { kind: 'approval', refId: entry.id, options: ['allow', 'deny'] } }, { key: `approval:${tenantId}:${entry.id}` });
        }
      } catch (err) {
        this.ctx.host.log('warn', `telegram: watching approvals of ${sessionId}: ${(err as Error).message}`);
      }
      await new Promise((resolve) => setTimeout(resolve, ESCALATION_POLL_MS));
    }
  }
}
