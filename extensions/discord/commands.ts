// Slash commands. /ask answers at once with a deferred response; each thread is one conversation, one
// session: /ask in a channel opens a thread from the response message (when the tenant's bot token is
// set) and the agent answers in it; /ask in that thread continues its session. Without a bot token the
// channel itself is the conversation and answers come as follow-ups. Replies are spoken too when voice
// is on for the channel. /status, /stop and /agent answer immediately.
import { ChannelType, Routes } from 'discord-api-types/v10';
import { InteractionResponseType } from 'discord-interactions';
import { converse } from '../../sdk/bridge/converse.js';
import { describeEscalation, type Escalation } from '../../sdk/bridge/escalations.js';
import type { DiscordBridge, DiscordConfig, DiscordOp, QueuedFile, QueuedPrompt } from './bridge.js';
import { channelOf, who, type Interaction } from './interaction.js';
import { agentsClient } from '../agents/contract.js';
import { sessionsClient } from '../sessions/contract.js';

const EPHEMERAL = 64;
const THREADS = new Set<number>([ChannelType.AnnouncementThread, ChannelType.PublicThread, ChannelType.PrivateThread]);
const say = (content: string, ephemeral = false) => ({ type: InteractionResponseType.CHANNEL_MESSAGE_WITH_SOURCE, data: { content: content.slice(0, 2000), ...(ephemeral ? { flags: EPHEMERAL } : {}) } });
const option = (i: Interaction, name: string): string | undefined => {
  const value = i.data?.options?.find((o) => o.name === name)?.value;
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
};

export async function command(bridge: DiscordBridge, config: DiscordConfig, i: Interaction): Promise<Record<string, unknown>> {
  const channelId = channelOf(i);
  if (!channelId) return say('This command works in a channel or thread.', true);
  const as = { tenantId: config.tenantId };
  const conversation = await bridge.store.conversation(config.tenantId, channelId);
  const parentId = i.channel?.parent_id ?? undefined;
  const mapped = (id: string | undefined) => (id ? config.settings.channels[id] : undefined);
  switch (i.data?.name) {
    case 'ask': {
      const prompt = option(i, 'prompt');
      if (!prompt) return say('Usage: /ask prompt:<your message>', true);
      const agentId = conversation?.agentId ?? mapped(channelId) ?? mapped(parentId) ?? config.settings.defaultAgentId;
      if (!agentId) return say('No agent is mapped to this channel: use /agent, or set channels or defaultAgentId in the Discord bridge configuration.', true);
      const inThread = THREADS.has(Number(i.channel?.type)) || conversation?.threadId === channelId;
      const opensThread = !inThread && Boolean(config.secrets.botToken);
      void ask(bridge, config, i, { channelId, parentId, agentId, prompt, inThread, opensThread }).catch((err) => bridge.ctx.host.log('error', `discord: /ask in ${channelId} failed: ${(err as Error).message}`));
      return { type: InteractionResponseType.DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE };
    }
    case 'status': {
      if (!conversation?.sessionId) return say('No conversation here yet: /ask to start one.', true);
      const session = await sessionsClient(bridge.ctx.host, as).get(conversation.sessionId);
      if (session.status !== 200) return say(`Session ${conversation.sessionId} is gone.`, true);
      return say(`Agent ${conversation.agentId}, session ${conversation.sessionId}: ${String(session.body?.status)}${session.body?.busy ? ' (working)' : ''}, ${Number(session.body?.turns ?? 0)} turns.`);
    }
    case 'stop': {
      if (!conversation?.sessionId) return say('Nothing to stop here.', true);
      const stopped = await sessionsClient(bridge.ctx.host, as).stop(conversation.sessionId);
      await bridge.store.forgetSession(config.tenantId, channelId);
      return say(stopped.status === 200 ? `Stopped session ${conversation.sessionId}; the next /ask starts a new one.` : `The session could not be stopped (${stopped.body?.error ?? stopped.status}); the next /ask starts a new one.`);
    }
    case 'agent': {
      const wanted = option(i, 'agent');
      const currentId = conversation?.agentId ?? mapped(channelId) ?? mapped(parentId) ?? config.settings.defaultAgentId;
      if (!wanted) return say(currentId ? `This channel talks to agent ${currentId}.` : 'No agent is mapped to this channel: /agent agent:<name or id>.', true);
      const list = await agentsClient(bridge.ctx.host, as).list({ limit: 200 });
      const agent = list.body?.agents?.find((a) => a.id === wanted || a.name.toLowerCase() === wanted.toLowerCase());
      if (!agent) return say(`No agent named ${wanted}.`, true);
      await bridge.store.upsertConversation(config.tenantId, { conversationId: channelId, channelId, threadId: conversation?.threadId ?? null, agentId: agent.id, sessionId: null, title: conversation?.title ?? `#${i.channel?.name ?? channelId}` });
      return say(`This channel now talks to agent ${agent.name}; the next /ask starts a new session.`);
    }
    default:
      return say(`Unknown command /${i.data?.name ?? ''}: try /ask, /status, /stop or /agent.`, true);
  }
}

interface Ask {
  channelId: string;
  /** The thread's parent channel, when asked in a thread. */
  parentId: string | undefined;
  agentId: string;
  prompt: string;
  inThread: boolean;
  opensThread: boolean;
}

/** Where a turn's messages go: a thread it opened (posted as the bot), or the interaction's follow-ups. */
interface Where {
  conversationId: string;
  threadId: string | null;
  asBot: boolean;
}

async function ask(bridge: DiscordBridge, config: DiscordConfig, i: Interaction, a: Ask): Promise<void> {
  // In a thread, the follow-ups (which also end the deferred response) land in the thread itself.
  const where: Where = a.opensThread ? await openThread(bridge, config, i, a) : { conversationId: a.channelId, threadId: a.inThread ? a.channelId : null, asBot: false };
  const reply = (body: Record<string, unknown>, files?: QueuedFile[]) =>
    bridge.queue(config.tenantId, where.asBot
      ? { kind: 'message', channelId: where.threadId!, body, ...(files ? { files } : {}) }
      : { kind: 'followUp', channelId: a.channelId, interactionToken: i.token, body, ...(files ? { files } : {}) });
  await bridge.serial.run(where.conversationId, async () => {
    let text: string;
    try {
      const answer = await converse(bridge.ctx, bridge.store, { tenantId: config.tenantId, conversationId: where.conversationId, channelId: where.conversationId, threadId: where.threadId, agentId: a.agentId, title: a.prompt.slice(0, 80), prompt: a.prompt }, (entry) => showEscalation(bridge, config, i, where, entry));
      text = answer.text || '(the agent answered with no text)';
    } catch (err) {
      await reply({ content: `Sorry, the agent could not answer: ${(err as Error).message}`.slice(0, 2000) });
      return;
    }
    let files;
    let note = '';
    try {
      files = await bridge.voiceFor(config, [a.channelId, ...(a.parentId ? [a.parentId] : [])], text);
    } catch (err) {
      note = `\n(voice unavailable: ${(err as Error).message})`;
    }
    await reply({ content: `${text.slice(0, 2000 - note.length)}${note}`, allowed_mentions: { parse: [] } }, files);
  });
}

/**
 * The deferred response becomes the opening message ("alice asked: …") and a thread is started from it;
 * the thread is the conversation. Done at once, not through the outbox: the interaction token is needed
 * now, and a failure falls back to the channel as the conversation.
 */
async function openThread(bridge: DiscordBridge, config: DiscordConfig, i: Interaction, a: Ask): Promise<Where> {
  try {
    const opening = await bridge.rest.send('PATCH', Routes.webhookMessage(config.settings.applicationId, i.token, '@original'), { content: `${who(i)} asked: ${a.prompt}`.slice(0, 2000), allowed_mentions: { parse: [] } });
    const thread = await bridge.rest.send<{ id: string }>('POST', Routes.threads(a.channelId, opening.id), { name: a.prompt.slice(0, 90), auto_archive_duration: 1440 }, { botToken: bridge.botToken(config) });
    return { conversationId: thread.id, threadId: thread.id, asBot: true };
  } catch (err) {
    bridge.ctx.host.log('warn', `discord: opening a thread in ${a.channelId} failed, answering in the channel: ${(err as Error).message}`);
    return { conversationId: a.channelId, threadId: null, asBot: false };
  }
}

function showEscalation(bridge: DiscordBridge, config: DiscordConfig, i: Interaction, where: Where, entry: Escalation): Promise<void> {
  return postEscalation(bridge, config, where.conversationId, entry, (body, prompt) => (where.asBot
    ? { kind: 'message', channelId: where.threadId!, body, prompt }
    : { kind: 'followUp', channelId: where.conversationId, interactionToken: i.token, body, prompt }));
}

/** An approval the conversation's session waits for, as a message with Allow / Deny buttons (once per entry). */
export async function postEscalation(bridge: DiscordBridge, config: DiscordConfig, conversationId: string, entry: Escalation, opFor: (body: Record<string, unknown>, prompt: QueuedPrompt) => DiscordOp): Promise<void> {
  if (await bridge.store.promptFor(config.tenantId, 'escalation', entry.id)) return;
  const button = (label: string, behavior: string, style: number) => ({ type: 2, style, label, custom_id: `esc:${behavior}:${entry.id}` });
  const body = { content: describeEscalation(entry).slice(0, 2000), components: [{ type: 1, components: [button('Allow', 'allow', 3), button('Deny', 'deny', 4)] }] };
  const prompt: QueuedPrompt = { kind: 'escalation', subjectId: entry.id, conversationId, options: ['allow', 'deny'] };
  await bridge.queue(config.tenantId, opFor(body, prompt), { waitMs: 0, key: `escalation:${config.tenantId}:${entry.id}` });
}
