// POST /workchat/interactions: Slack's interactivity endpoint (form-encoded `payload`), signed like
// events; a request seen before (the same signature: a replay within the five-minute window) is refused.
// A button resolves the approval or answers the owner question it was posted with; once that is settled
// the message is updated to say what was decided, so nobody presses it again. When it could not be
// settled (the queue or the notifications extension failed) the buttons stay, and the reason is said in
// the thread, so the press can be tried again.
import { createHash } from 'node:crypto';
import { RoostError, validationError } from '../../protocol/errors.js';
import { settleEscalation } from '../../sdk/bridge/escalations.js';
import { answerOwnerQuestion } from '../notifications/contract.js';
import type { RouteHandler } from '../../sdk/extension.js';
import { ok } from '../../sdk/http.js';
import { section, type SlackBridge, type SlackConfig } from './bridge.js';
import { parseJson, rawBody, signedBy } from './inbound.js';
import { ANSWER_ACTION, ESCALATION_ACTION } from './talk.js';

interface BlockAction {
  action_id: string;
  value?: string;
}

export const interactionRoutes: Record<string, RouteHandler<SlackBridge>> = {
  async 'POST /workchat/interactions'(req, _ctx, bridge) {
    const body = rawBody(req);
    const encoded = new URLSearchParams(body).get('payload');
    if (!encoded) throw validationError('the interaction has no payload field');
    const payload = parseJson(encoded, 'the interaction payload');
    const config = await signedBy(bridge, req, body, payload);
    const signature = createHash('sha256').update(req.headers['x-slack-signature'] ?? '').digest('hex');
    if (!(await bridge.store.firstSight(`interaction:${config.tenantId}:${signature}`))) throw new RoostError('CONFLICT', 'this interaction was already handled (a replay?)');
    const action = Array.isArray(payload.actions) ? (payload.actions[0] as BlockAction | undefined) : undefined;
    const channel = payload.channel?.id ?? payload.container?.channel_id;
    const ts = payload.message?.ts ?? payload.container?.message_ts;
    if (payload.type !== 'block_actions' || !action || typeof channel !== 'string' || typeof ts !== 'string') return ok({ ok: true, ignored: 'not a button of ours' });
    if (!bridge.inbound.take(`user:${config.tenantId}:${String(payload.user?.id ?? 'unknown')}`)) throw new RoostError('RATE_LIMITED', 'too many presses; wait a minute');
    const who = String(payload.user?.username ?? payload.user?.name ?? payload.user?.id ?? 'someone');
    await press(bridge, config, `${channel}:${ts}`, action, who);
    return ok({ ok: true });
  },
};

async function press(bridge: SlackBridge, config: SlackConfig, externalId: string, action: BlockAction, who: string): Promise<void> {
  const prompt = await bridge.store.prompt(externalId);
  if (!prompt || prompt.tenantId !== config.tenantId) return;
  const [channel, threadTs] = [externalId.slice(0, externalId.indexOf(':')), externalId.slice(externalId.indexOf(':') + 1)];
  const close = (text: string) => bridge.queue(config.tenantId, { kind: 'update', externalId, message: { text, blocks: [section(text)] }, closePrompt: true });
  const tell = (text: string) => bridge.queue(config.tenantId, { kind: 'post', channel, threadTs, message: { text } });
  if (prompt.kind === 'escalation' && action.action_id.startsWith(ESCALATION_ACTION)) {
    const behavior = action.action_id.endsWith('_allow') ? 'allow' : 'deny';
    const outcome = await settleEscalation(bridge.ctx.host, config.tenantId, prompt.subjectId, behavior, who);
    await (outcome.final ? close(`${outcome.text} (${prompt.subjectId})`) : tell(outcome.text));
    return;
  }
  if (prompt.kind === 'question' && action.action_id.startsWith(ANSWER_ACTION)) {
    const answer = prompt.options[Number(String(action.value ?? '').split('|')[1])];
    if (answer === undefined) return;
    const outcome = await answerOwnerQuestion(bridge.ctx.host, config.tenantId, prompt.subjectId, answer, 'slack', who);
    if (outcome.accepted) await close(outcome.text);
    else await tell(outcome.text);
  }
}
