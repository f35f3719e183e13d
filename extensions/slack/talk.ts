// A message addressed to the bot: the mapped agent answers in the same thread; approvals the session
// waits for appear in the thread as Allow / Deny buttons. Every reply goes through the outbox: a Slack
// outage delays it (retried with backoff), never the session.
import { converse } from '../../sdk/bridge/converse.js';
import { describeEscalation, type Escalation } from '../../sdk/bridge/escalations.js';
import { section, type SlackBridge, type SlackConfig } from './bridge.js';

export const ESCALATION_ACTION = 'roost_escalation';
export const ANSWER_ACTION = 'roost_answer';

export interface Message {
  channel: string;
  threadTs: string;
  text: string;
  user: string;
}

export async function talk(bridge: SlackBridge, config: SlackConfig, message: Message): Promise<void> {
  const conversationId = `${message.channel}:${message.threadTs}`;
  const reply = (text: string) => bridge.queue(config.tenantId, { kind: 'post', channel: message.channel, threadTs: message.threadTs, message: { text } });
  const agentId = config.settings.channels[message.channel] ?? config.settings.defaultAgentId;
  const known = await bridge.store.conversation(config.tenantId, conversationId);
  if (!agentId && !known) {
    await reply('No agent is mapped to this channel: set one in the Slack bridge configuration (channels or defaultAgentId).');
    return;
  }
  await bridge.serial.run(conversationId, async () => {
    try {
      const answer = await converse(
        bridge.ctx,
        bridge.store,
        { tenantId: config.tenantId, conversationId, channelId: message.channel, threadId: message.threadTs, agentId: (known?.agentId ?? agentId)!, title: message.text.slice(0, 80), prompt: message.text },
        (entry) => showEscalation(bridge, config, message, conversationId, entry),
      );
      await reply(answer.text || '(the agent answered with no text)');
    } catch (err) {
      await reply(`Sorry, the agent could not answer: ${(err as Error).message}`);
    }
  });
}

async function showEscalation(bridge: SlackBridge, config: SlackConfig, message: Message, conversationId: string, entry: Escalation): Promise<void> {
  if (await bridge.store.promptFor(config.tenantId, 'escalation', entry.id)) return;
  const text = describeEscalation(entry);
  const button = (label: string, behavior: string, style: 'primary' | 'danger') => ({ type: 'button', text: { type: 'plain_text', text: label }, style, action_id: `${ESCALATION_ACTION}_${behavior}`, value: entry.id });
  await bridge.queue(config.tenantId, {
    kind: 'post',
    channel: message.channel,
    threadTs: message.threadTs,
    message: { text, blocks: [section(text), { type: 'actions', elements: [button('Allow', 'allow', 'primary'), button('Deny', 'deny', 'danger')] }] },
    prompt: { kind: 'escalation', subjectId: entry.id, conversationId, options: ['allow', 'deny'] },
  }, { waitMs: 0, key: `escalation:${config.tenantId}:${entry.id}` });
}
