// POST /workchat/interactions: Slack's interactivity endpoint (form-encoded `payload`), signed like
// events. A button resolves the approval or answers the owner question it was posted with; the message
// is then updated to say what was decided, so nobody presses it again.
import { validationError } from '../../protocol/errors.js';
import { resolveEscalation } from '../_shared/bridge/escalations.js';
import { answerOwnerQuestion } from '../_shared/bridge/owner-answer.js';
import type { RouteHandler } from '../_shared/extension.js';
import { ok } from '../_shared/http.js';
import type { SlackBridge, SlackConfig } from './bridge.js';
import { parseJson, rawBody, signedBy } from './inbound.js';
import { ANSWER_ACTION, ESCALATION_ACTION } from './talk.js';

interface BlockAction {
  action_id: string;
  value?: string;
}

export function interactionRoutes(bridge: () => SlackBridge): Record<string, RouteHandler> {
  return {
    async 'POST /workchat/interactions'(req) {
      const body = rawBody(req);
      const encoded = new URLSearchParams(body).get('payload');
      if (!encoded) throw validationError('the interaction has no payload field');
      const payload = parseJson(encoded, 'the interaction payload');
      const config = await signedBy(bridge(), req, body, typeof payload.team?.id === 'string' ? payload.team.id : undefined);
      const action = Array.isArray(payload.actions) ? (payload.actions[0] as BlockAction | undefined) : undefined;
      const channel = payload.channel?.id ?? payload.container?.channel_id;
      const ts = payload.message?.ts ?? payload.container?.message_ts;
      if (payload.type !== 'block_actions' || !action || typeof channel !== 'string' || typeof ts !== 'string') return ok({ ok: true, ignored: 'not a button of ours' });
      const who = String(payload.user?.username ?? payload.user?.name ?? payload.user?.id ?? 'someone');
      await press(bridge(), config, `${channel}:${ts}`, action, who);
      return ok({ ok: true });
    },
  };
}

async function press(bridge: SlackBridge, config: SlackConfig, externalId: string, action: BlockAction, who: string): Promise<void> {
  const token = config.secrets.botToken!;
  const prompt = await bridge.store.prompt(externalId);
  if (!prompt || prompt.tenantId !== config.tenantId) return;
  const [channel, threadTs] = [externalId.slice(0, externalId.indexOf(':')), externalId.slice(externalId.indexOf(':') + 1)];
  const close = (text: string) => bridge.update(token, externalId, { text, blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }] });
  if (prompt.kind === 'escalation' && action.action_id.startsWith(ESCALATION_ACTION)) {
    const behavior = action.action_id.endsWith('_allow') ? 'allow' : 'deny';
    const outcome = await resolveEscalation(bridge.ctx.host, config.tenantId, prompt.subjectId, behavior, who);
    await bridge.store.closePrompt(externalId);
    await close(`${outcome} (${prompt.subjectId})`);
    return;
  }
  if (prompt.kind === 'question' && action.action_id.startsWith(ANSWER_ACTION)) {
    const answer = prompt.options[Number(String(action.value ?? '').split('|')[1])];
    if (answer === undefined) return;
    const outcome = await answerOwnerQuestion(bridge.ctx.host, config.tenantId, prompt.subjectId, answer, 'slack', who);
    if (outcome.accepted) {
      await bridge.store.closePrompt(externalId);
      await close(outcome.text);
    } else await bridge.post(token, { channel, thread_ts: threadTs, text: outcome.text });
  }
}
