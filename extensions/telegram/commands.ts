// Slash commands: /status, /stop, /agent <name>, /help (and Telegram's /start). They run beside the
// chat's turn (a /stop must not wait for the turn it stops) and change only what they own: /stop the
// session it saw, /agent the agent (and so the session).
import type { ExtensionContext } from '../../sdk/extension.js';
import type { Sender } from './sender.js';
import type { Chat, TelegramStore } from './store.js';
import { agentsClient } from '../agents/contract.js';
import { sessionsClient } from '../sessions/contract.js';

export const HELP = [
  'Send a message to talk to this chat\'s agent.',
  '/status: the chat\'s agent and session',
  '/stop: stop the current session (the next message starts a new one)',
  '/agent <name>: talk to another agent (starts a new session)',
  '/help: this list',
].join('\n');

export async function runCommand(ctx: ExtensionContext, store: TelegramStore, sender: Sender, chat: Chat, text: string): Promise<void> {
  const [head = '', ...rest] = text.split(/\s+/);
  const command = head.slice(1).split('@')[0]!.toLowerCase();
  const as = { tenantId: chat.tenantId };
  const say = async (message: string) => void (await sender.say(chat.tenantId, chat.chatId, message));
  switch (command) {
    case 'help':
    case 'start':
      return say(HELP);
    case 'status': {
      const agent = chat.agentId ? await agentsClient(ctx.host, as).get(chat.agentId) : undefined;
      const session = chat.sessionId ? await sessionsClient(ctx.host, as).get(chat.sessionId) : undefined;
      const lines = [
        `Agent: ${agent?.status === 200 ? `${agent.body?.name} (${chat.agentId})` : chat.agentId ? `${chat.agentId} (not found)` : 'none: send /agent <name>'}`,
        `Session: ${session?.status === 200 ? `${chat.sessionId} (${session.body?.status})` : 'none yet'}`,
      ];
      return say(lines.join('\n'));
    }
    case 'stop': {
      if (!chat.sessionId) return say('There is no session to stop.');
      const res = await sessionsClient(ctx.host, as).stop(chat.sessionId);
      await store.setSession(chat.tenantId, chat.chatId, chat, null);
      return say(res.status === 200 ? `Stopped session ${chat.sessionId}.` : `Session ${chat.sessionId} is closed here (${res.body?.error ?? res.status}).`);
    }
    case 'agent': {
      const name = rest.join(' ').trim();
      const list = await agentsClient(ctx.host, as).list({ limit: 200 });
      const agents = list.body?.agents ?? [];
      if (!name) return say(`Agents: ${agents.map((a) => a.name).join(', ') || 'none'}\nSend /agent <name> to choose one.`);
      const agent = agents.find((a) => a.name.toLowerCase() === name.toLowerCase());
      if (!agent) return say(`No agent named "${name}". Agents: ${agents.map((a) => a.name).join(', ') || 'none'}`);
      await store.setAgent(chat.tenantId, chat.chatId, agent.id);
      return say(`Now talking to ${agent.name}.`);
    }
    default:
      return say(`Unknown command /${command}.\n${HELP}`);
  }
}
