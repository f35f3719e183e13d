// Button presses: an Allow / Deny under an approval resolves its escalation-queue entry; an answer
// under an owner question is passed to the notifications extension. Once settled the message is updated
// in place to say what was decided (its buttons go); when it could not be settled (the queue or the
// notifications extension failed) the reason is said in a new message and the buttons stay for another try.
import { InteractionResponseType } from 'discord-interactions';
import { settleEscalation } from '../../sdk/bridge/escalations.js';
import { answerOwnerQuestion } from '../notifications/contract.js';
import type { DiscordBridge, DiscordConfig } from './bridge.js';
import { channelOf, who, type Interaction } from './interaction.js';

const update = (content: string) => ({ type: InteractionResponseType.UPDATE_MESSAGE, data: { content: content.slice(0, 2000), components: [] } });
const say = (content: string) => ({ type: InteractionResponseType.CHANNEL_MESSAGE_WITH_SOURCE, data: { content: content.slice(0, 2000) } });

export async function component(bridge: DiscordBridge, config: DiscordConfig, i: Interaction): Promise<Record<string, unknown>> {
  const [kind, first, second] = String(i.data?.custom_id ?? '').split(':');
  const prompt = i.message ? await bridge.store.prompt(`${channelOf(i)}:${i.message.id}`) : undefined;
  if (!prompt || prompt.tenantId !== config.tenantId) return say('This button belongs to nothing that is still open.');
  if (kind === 'esc' && prompt.kind === 'escalation' && (first === 'allow' || first === 'deny') && second === prompt.subjectId) {
    const outcome = await settleEscalation(bridge.ctx.host, config.tenantId, prompt.subjectId, first, who(i));
    if (!outcome.final) return say(outcome.text);
    await bridge.store.closePrompt(prompt.externalId);
    return update(`${outcome.text} (${prompt.subjectId})`);
  }
  if (kind === 'ans' && prompt.kind === 'question' && first === prompt.subjectId) {
    const answer = prompt.options[Number(second)];
    if (answer === undefined) return say('That answer is not one of the options.');
    const outcome = await answerOwnerQuestion(bridge.ctx.host, config.tenantId, prompt.subjectId, answer, 'discord', who(i));
    if (!outcome.accepted) return say(outcome.text);
    await bridge.store.closePrompt(prompt.externalId);
    return update(outcome.text);
  }
  return say('This button belongs to nothing that is still open.');
}
