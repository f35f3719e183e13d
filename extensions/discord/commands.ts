// Slash commands. /ask answers at once with a deferred response and follows up with the agent's reply
// (spoken too, when voice is on for the channel); each channel or thread is one conversation, one
// session. /status, /stop and /agent answer immediately.
import { InteractionResponseType } from 'discord-interactions';
import { converse } from '../_shared/bridge/converse.js';
import { describeEscalation, type Escalation } from '../_shared/bridge/escalations.js';
import type { DiscordBridge, DiscordConfig } from './bridge.js';
import { channelOf, type Interaction } from './interactions.js';

const EPHEMERAL = 64;
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
  switch (i.data?.name) {
    case 'ask': {
      const prompt = option(i, 'prompt');
      if (!prompt) return say('Usage: /ask prompt:<your message>', true);
      const agentId = conversation?.agentId ?? config.settings.channels[channelId] ?? config.settings.defaultAgentId;
      if (!agentId) return say('No agent is mapped to this channel: use /agent, or set channels or defaultAgentId in the Discord bridge configuration.', true);
      void ask(bridge, config, i, channelId, agentId, prompt).catch((err) => bridge.ctx.host.log('error', `discord: /ask in ${channelId} failed: ${(err as Error).message}`));
      return { type: InteractionResponseType.DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE };
    }
    case 'status': {
      if (!conversation?.sessionId) return say('No conversation in this channel yet: /ask to start one.', true);
      const session = await bridge.ctx.host.call<Record<string, unknown>>('GET', `/api/sessions/${encodeURIComponent(conversation.sessionId)}`, undefined, as);
      if (session.status !== 200) return say(`Session ${conversation.sessionId} is gone.`, true);
      return say(`Agent ${conversation.agentId}, session ${conversation.sessionId}: ${String(session.body.status)}${session.body.busy ? ' (working)' : ''}, ${Number(session.body.turns ?? 0)} turns.`);
    }
    case 'stop': {
      if (!conversation?.sessionId) return say('Nothing to stop in this channel.', true);
      const stopped = await bridge.ctx.host.call<{ error?: string }>('POST', `/api/sessions/${encodeURIComponent(conversation.sessionId)}/stop`, {}, as);
      await bridge.store.forgetSession(config.tenantId, channelId);
      return say(stopped.status === 200 ? `Stopped session ${conversation.sessionId}; the next /ask starts a new one.` : `The session could not be stopped (${stopped.body?.error ?? stopped.status}); the next /ask starts a new one.`);
    }
    case 'agent': {
      const wanted = option(i, 'agent');
      const currentId = conversation?.agentId ?? config.settings.channels[channelId] ?? config.settings.defaultAgentId;
      if (!wanted) return say(currentId ? `This channel talks to agent ${currentId}.` : 'No agent is mapped to this channel: /agent agent:<name or id>.', true);
      const list = await bridge.ctx.host.call<{ agents?: Array<{ id: string; name: string }> }>('GET', '/api/agents?limit=200', undefined, as);
      const agent = list.body?.agents?.find((a) => a.id === wanted || a.name.toLowerCase() === wanted.toLowerCase());
      if (!agent) return say(`No agent named ${wanted}.`, true);
      await bridge.store.upsertConversation(config.tenantId, { conversationId: channelId, channelId, threadId: null, agentId: agent.id, sessionId: null, title: conversation?.title ?? `#${i.channel?.name ?? channelId}` });
      return say(`This channel now talks to agent ${agent.name}; the next /ask starts a new session.`);
    }
    default:
      return say(`Unknown command /${i.data?.name ?? ''}: try /ask, /status, /stop or /agent.`, true);
  }
}

async function ask(bridge: DiscordBridge, config: DiscordConfig, i: Interaction, channelId: string, agentId: string, prompt: string): Promise<void> {
  await bridge.serial.run(channelId, async () => {
    let text: string;
    try {
      const reply = await converse(bridge.ctx, bridge.store, { tenantId: config.tenantId, conversationId: channelId, channelId, threadId: null, agentId, title: prompt.slice(0, 80), prompt }, (entry) => showEscalation(bridge, config, i, channelId, entry));
      text = reply.text || '(the agent answered with no text)';
    } catch (err) {
      await bridge.followUp(config, i.token, channelId, { content: `Sorry, the agent could not answer: ${(err as Error).message}`.slice(0, 2000) });
      return;
    }
    let files;
    let note = '';
    try {
      files = await bridge.voiceFor(config, channelId, text);
    } catch (err) {
      note = `\n(voice unavailable: ${(err as Error).message})`;
    }
    const content = `${text.slice(0, 2000 - note.length)}${note}`;
    await bridge.followUp(config, i.token, channelId, { content }, files);
  });
}

async function showEscalation(bridge: DiscordBridge, config: DiscordConfig, i: Interaction, channelId: string, entry: Escalation): Promise<void> {
  if (await bridge.store.promptFor(config.tenantId, 'escalation', entry.id)) return;
  const button = (label: string, behavior: string, style: number) => ({ type: 2, style, label, custom_id: `esc:${behavior}:${entry.id}` });
  const message = await bridge.followUp(config, i.token, channelId, {
    content: describeEscalation(entry).slice(0, 2000),
    components: [{ type: 1, components: [button('Allow', 'allow', 3), button('Deny', 'deny', 4)] }],
  });
  await bridge.store.recordPrompt({ externalId: `${channelId}:${message.id}`, tenantId: config.tenantId, kind: 'escalation', subjectId: entry.id, conversationId: channelId, options: ['allow', 'deny'] });
}
