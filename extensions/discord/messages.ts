// Ordinary messages from the Gateway. One that mentions the bot, or any in a thread the bot started, is a
// turn of that channel's (or thread's) conversation, as /ask is: the channel's agent answers, and the
// answer is posted through REST as a reply in the same channel or thread, spoken too when voice is on
// (through the voice cache). The bot's own messages, other bots', webhooks' (the interaction follow-ups)
// and system messages are ignored; a message handled once (a RESUME replays, another instance) is not
// handled again; what comes in is rate-limited per user and per channel, as interactions are.
import { MessageType, type GatewayMessageCreateDispatchData } from 'discord-api-types/v10';
import { converse } from '../../sdk/bridge/converse.js';
import type { DiscordBridge, DiscordConfig, QueuedFile } from './bridge.js';
import { postEscalation } from './commands.js';

export async function onMessage(bridge: DiscordBridge, tenantId: string, botUserId: string, m: GatewayMessageCreateDispatchData): Promise<void> {
  if (m.author.bot || m.webhook_id || m.author.id === botUserId) return;
  if (m.type !== MessageType.Default && m.type !== MessageType.Reply) return;
  const config = await bridge.configs.get(tenantId);
  const token = config?.secrets.botToken;
  if (!config || !token) return;
  const mentioned = m.mentions.some((user) => user.id === botUserId);
  const conversation = await bridge.store.conversation(tenantId, m.channel_id);
  // Only a thread with a conversation can be one the bot started: the others need no lookup.
  if (!mentioned && conversation?.threadId !== m.channel_id) return;
  const channel = await bridge.channels.facts(token, m.channel_id, (err) => bridge.ctx.host.log('warn', `discord: looking up channel ${m.channel_id} failed: ${err.message}`));
  if (!mentioned && !(channel.thread && channel.ownerId === botUserId)) return;
  const text = m.content.replace(new RegExp(`<@!?${botUserId}>`, 'g'), '').trim();
  if (text === '') return;
  if (!(await bridge.store.firstSight(`message:${tenantId}:${m.channel_id}:${m.id}`))) return;

  const reply = (content: string, files?: QueuedFile[]) =>
    bridge.queue(tenantId, {
      kind: 'message',
      channelId: m.channel_id,
      body: { content: content.slice(0, 2000), allowed_mentions: { parse: [] }, message_reference: { message_id: m.id, channel_id: m.channel_id, fail_if_not_exists: false } },
      ...(files ? { files } : {}),
    });
  if (!bridge.inbound.take(`user:${tenantId}:${m.author.id}`) || !bridge.inbound.take(`channel:${tenantId}:${m.channel_id}`)) {
    if (bridge.inbound.warnOnce(`user:${tenantId}:${m.author.id}`)) await reply('Too many messages: wait a minute before sending more.');
    return;
  }
  const mapped = (id: string | undefined) => (id ? config.settings.channels[id] : undefined);
  const agentId = conversation?.agentId ?? mapped(m.channel_id) ?? mapped(channel.parentId) ?? config.settings.defaultAgentId;
  if (!agentId) {
    await reply('No agent is mapped to this channel: use /agent, or set channels or defaultAgentId in the Discord bridge configuration.');
    return;
  }
  const channels = [m.channel_id, ...(channel.parentId ? [channel.parentId] : [])];
  await bridge.serial.run(m.channel_id, () => answer(bridge, config, { channelId: m.channel_id, threadId: channel.thread ? m.channel_id : null, agentId, text, voiceChannels: channels }, reply));
}

interface Turn {
  channelId: string;
  threadId: string | null;
  agentId: string;
  text: string;
  voiceChannels: string[];
}

async function answer(bridge: DiscordBridge, config: DiscordConfig, t: Turn, reply: (content: string, files?: QueuedFile[]) => Promise<unknown>): Promise<void> {
  let text: string;
  try {
    const turn = { tenantId: config.tenantId, conversationId: t.channelId, channelId: t.channelId, threadId: t.threadId, agentId: t.agentId, title: t.text.slice(0, 80), prompt: t.text };
    const answered = await converse(bridge.ctx, bridge.store, turn, (entry) => postEscalation(bridge, config, t.channelId, entry, (body, prompt) => ({ kind: 'message', channelId: t.channelId, body, prompt })));
    text = answered.text || '(the agent answered with no text)';
  } catch (err) {
    await reply(`Sorry, the agent could not answer: ${(err as Error).message}`);
    return;
  }
  let files: QueuedFile[] | undefined;
  let note = '';
  try {
    files = await bridge.voiceFor(config, t.voiceChannels, text);
  } catch (err) {
    note = `\n(voice unavailable: ${(err as Error).message})`;
  }
  await reply(`${text.slice(0, 2000 - note.length)}${note}`, files);
}
