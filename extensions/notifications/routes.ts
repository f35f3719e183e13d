// The notifications REST API: channels (owner only: their config can be sensitive, a webhook URL say), notifications and their deliveries, owner questions.
import { join } from 'node:path';
import { notFound, RoostError, validationError } from '../../protocol/errors.js';
import { validate } from '../../protocol/validate.js';
import type { ExtensionContext, RouteHandler, RouteRequest } from '../../sdk/extension.js';
import { created, noContent, ok, page, queryString } from '../../sdk/http.js';
import { requireRole } from '../../sdk/roles.js';
import type { ChannelInput } from './channels.js';
import { NOTIFICATIONS_ROUTES, type AnswerQuestionRequest, type QuestionStatus } from './contract.js';
import { checkWebhook } from './send.js';
import type { State } from './state.js';
import { agentsClient } from '../agents/contract.js';

const schema = (ctx: ExtensionContext, name: string) => join(ctx.init.plugin.dir, 'schemas', name);
const STATUSES: QuestionStatus[] = ['pending', 'answered', 'expired'];

export const routes: Record<string, RouteHandler<State>> = {
  async 'GET /api/notification-channels'(req, _ctx, state) {
    requireRole(req.auth, 'owner', 'reading notification channels');
    const agentId = queryString(req.query, 'agentId');
    return ok({ channels: await state.channels.list(req.auth.tenantId, agentId === undefined ? {} : { agentId: agentId === '' ? null : agentId }) });
  },

  async 'POST /api/notification-channels'(req, ctx, state) {
    requireRole(req.auth, 'owner', 'configuring notification channels');
    const input = validate<ChannelInput>(schema(ctx, 'channel-create.json'), req.body);
    await checkAgent(ctx, req, input.agentId);
    if (input.type === 'webhook' && typeof input.config?.url === 'string') await checkWebhook(req.auth.tenantId, input.agentId ?? null, input.config.url, state.settings, 'body.config.url');
    const channel = await state.channels.create(req.auth.tenantId, input);
    ctx.host.audit('notification_channel.created', `notification_channel:${channel.id}`, { type: channel.type, agentId: channel.agentId });
    return created(channel);
  },

  async 'GET /api/notification-channels/:id'(req, _ctx, state) {
    requireRole(req.auth, 'owner', 'reading notification channels');
    const channel = await state.channels.get(req.auth.tenantId, req.params.id!);
    if (!channel) throw notFound(`notification channel ${req.params.id}`);
    return ok(channel);
  },

  async 'PUT /api/notification-channels/:id'(req, ctx, state) {
    requireRole(req.auth, 'owner', 'configuring notification channels');
    const input = validate<Partial<ChannelInput>>(schema(ctx, 'channel-update.json'), req.body);
    await checkAgent(ctx, req, input.agentId);
    const existing = await state.channels.get(req.auth.tenantId, req.params.id!);
    if (!existing) throw notFound(`notification channel ${req.params.id}`);
    // A webhook is checked against the reach of what it will be: its URL and whose channel it is.
    const url = input.config?.url ?? existing.config.url;
    if (existing.type === 'webhook' && typeof url === 'string') await checkWebhook(req.auth.tenantId, input.agentId !== undefined ? input.agentId : existing.agentId, url, state.settings, 'body.config.url');
    const channel = await state.channels.update(req.auth.tenantId, req.params.id!, input);
    if (!channel) throw notFound(`notification channel ${req.params.id}`);
    ctx.host.audit('notification_channel.updated', `notification_channel:${channel.id}`, { secretsReplaced: input.secrets !== undefined });
    return ok(channel);
  },

  async 'DELETE /api/notification-channels/:id'(req, ctx, state) {
    requireRole(req.auth, 'owner', 'configuring notification channels');
    if (!(await state.channels.remove(req.auth.tenantId, req.params.id!))) throw notFound(`notification channel ${req.params.id}`);
    ctx.host.audit('notification_channel.deleted', `notification_channel:${req.params.id}`, {});
    return noContent();
  },

  async 'GET /api/notifications'(req, _ctx, state) {
    const { limit, offset } = page(req.query);
    const agentId = queryString(req.query, 'agentId');
    return ok({ notifications: await state.notifications.list(req.auth.tenantId, { limit, offset, ...(agentId ? { agentId } : {}) }), limit, offset });
  },

  async 'GET /api/notifications/:id'(req, _ctx, state) {
    const notification = await state.notifications.get(req.auth.tenantId, req.params.id!);
    if (!notification) throw notFound(`notification ${req.params.id}`);
    return ok(notification);
  },

  async 'GET /api/notifications/:id/deliveries'(req, _ctx, state) {
    const { notifications, deliveries } = state;
    if (!(await notifications.get(req.auth.tenantId, req.params.id!))) throw notFound(`notification ${req.params.id}`);
    return ok({ deliveries: await deliveries.ofNotification(req.auth.tenantId, req.params.id!) });
  },

  async 'GET /api/owner-questions'(req, _ctx, state) {
    const { limit, offset } = page(req.query);
    const status = queryString(req.query, 'status') ?? (queryString(req.query, 'pending') === 'true' ? 'pending' : undefined);
    if (status !== undefined && !STATUSES.includes(status as QuestionStatus)) throw validationError(`query.status must be one of ${STATUSES.join(', ')}`);
    return ok({ questions: await state.questions.list(req.auth.tenantId, { limit, offset, ...(status ? { status: status as QuestionStatus } : {}) }), limit, offset });
  },

  async 'GET /api/owner-questions/:id'(req, _ctx, state) {
    const { questions, deliveries, owner } = state;
    const question = await questions.get(req.auth.tenantId, req.params.id!);
    if (!question) throw notFound(`owner question ${req.params.id}`);
    return ok({ ...question, waitingCalls: owner.callsWaiting(question.id), dispatches: await deliveries.ofQuestion(req.auth.tenantId, question.id) });
  },

  async 'POST /api/owner-questions/:id/answer'(req, ctx, state) {
    requireRole(req.auth, 'operator', 'answering an owner question');
    const { answer } = validate<{ answer: string }>(schema(ctx, 'answer.json'), req.body);
    const question = await state.owner.answer(req.auth.tenantId, req.params.id!, answer, 'dashboard', req.auth.actor);
    return ok(question);
  },

  /** A chat bridge reporting an answer given in its chat (a button or a reply). */
  async [NOTIFICATIONS_ROUTES.answerQuestion](req, ctx, state) {
    const input = validate<AnswerQuestionRequest>(schema(ctx, 'internal-answer.json'), req.body);
    await state.owner.answer(req.auth.tenantId, req.params.id!, input.answer, input.channel, input.responder ?? null);
    return ok({ accepted: true });
  },
};

/** A channel's agent must be one of the caller's tenant (another tenant's agent is as unknown as none). */
async function checkAgent(ctx: ExtensionContext, req: RouteRequest, agentId: string | null | undefined): Promise<void> {
  if (!agentId) return;
  const res = await agentsClient(ctx.host, { requestId: req.id }).get(agentId);
  if (res.status === 404) throw validationError(`body.agentId: agent ${agentId} not found`);
  if (res.status !== 200) throw new RoostError('EXTENSION_UNAVAILABLE', `cannot check agent ${agentId} right now (status ${res.status})`);
}
