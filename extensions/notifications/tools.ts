// The agent tools: svc_notify_owner, svc_ask_owner (blocks until answered or timed out) and
// svc_configure_notifications (an agent's own channels; the tenant's channels are shown, not changed).
import { RoostError, validationError } from '../../protocol/errors.js';
import type { ToolHandler } from '../../sdk/extension.js';
import { checkConfig, type Channel, type ChannelInput } from './channels.js';
import { QUESTION_TIMEOUT } from './config.js';
import type { Caller, Priority } from './notify.js';
import { questionLifetimeMs } from './owner-questions.js';
import { checkWebhook } from './send.js';
import type { State } from './state.js';

const result = (value: unknown) => ({ content: [{ type: 'text' as const, text: JSON.stringify(value) }] });
const callerOf = (c: { tenantId: string; agentId?: string | null; sessionId?: string | null }): Caller => ({ tenantId: c.tenantId, agentId: c.agentId ?? null, sessionId: c.sessionId ?? null });

export const tools: Record<string, ToolHandler<State>> = {
  async svc_notify_owner(args, caller, _ctx, state) {
    const input = args as { message: string; channels?: string[]; priority?: Priority };
    const { notification, deliveries } = await state.notifications.notify(callerOf(caller), input);
    return result({
      notificationId: notification.id,
      priority: notification.priority,
      deliveries: deliveries.map((d) => ({ id: d.id, channelId: d.channelId, channelType: d.channelType, status: d.status, attempts: d.attempts, lastError: d.lastError })),
    });
  },

  async svc_ask_owner(args, caller, _ctx, state) {
    const receivedAt = Date.now();
    const { settings, owner } = state;
    const input = args as { question: string; options?: string[]; timeout?: number };
    const minutes = input.timeout ?? QUESTION_TIMEOUT.defaultMinutes;
    if (minutes < settings.minTimeoutMinutes || minutes > QUESTION_TIMEOUT.maxMinutes) {
      throw validationError(`timeout must be from ${settings.minTimeoutMinutes} to ${QUESTION_TIMEOUT.maxMinutes} minutes`);
    }
    const timeoutMs = questionLifetimeMs(Math.round(minutes * 60_000), receivedAt);
    const question = await owner.ask(callerOf(caller), { question: input.question, options: input.options ?? [], timeoutMs });
    const { question: final, answered } = await owner.wait(question, receivedAt);
    return result({
      questionId: final.id,
      answered,
      status: final.status,
      answer: final.answer,
      channel: final.answeredVia,
      responder: final.responder,
      ...(answered ? {} : { message: 'the owner did not answer before the timeout' }),
    });
  },

  async svc_configure_notifications(args, caller, _ctx, state) {
    const { channels } = state;
    const me = callerOf(caller);
    if (args.action === 'update') {
      if (!me.agentId) throw validationError('updating notification channels needs an agent identity (an agent token)');
      if (!Array.isArray(args.channels)) throw validationError('arguments.channels is required for action update');
      await replaceOwn(state, me.tenantId, me.agentId, args.channels as Array<ChannelInput & { id?: string }>);
    }
    const all = await channels.list(me.tenantId, me.agentId ? { forAgent: me.agentId } : { agentId: null });
    return result({ channels: all.map(view) });
  },
};

/** The agent's own channels become exactly `wanted`: entries with an id are updated, others created, the rest deleted. */
async function replaceOwn(state: State, tenantId: string, agentId: string, wanted: Array<ChannelInput & { id?: string }>): Promise<void> {
  const { channels } = state;
  const own = await channels.list(tenantId, { agentId });
  // Everything is checked before anything changes.
  for (const w of wanted) {
    const existing = w.id ? own.find((c) => c.id === w.id) : undefined;
    if (w.id && !existing) throw validationError(`channel ${w.id} is not one of this agent's own channels`);
    const type = existing?.type ?? w.type;
    if (!type) throw validationError('a new channel needs a type');
    if (existing && w.type !== undefined && w.type !== existing.type) throw validationError(`channel ${w.id} is a ${existing.type} channel; its type cannot change`);
    const config = w.config ?? existing?.config ?? {};
    checkConfig(type, config);
    // Checked now for a clear answer; each delivery checks again as it connects.
    if (type === 'webhook') await checkAgentWebhook(state, tenantId, agentId, String(config.url));
  }
  for (const w of wanted) {
    const { id, ...input } = w;
    if (id) await channels.update(tenantId, id, input);
    else await channels.create(tenantId, { ...input, agentId });
  }
  for (const c of own) if (!wanted.some((w) => w.id === c.id)) await channels.remove(tenantId, c.id);
}

async function checkAgentWebhook(state: State, tenantId: string, agentId: string, url: string): Promise<void> {
  try {
    await checkWebhook(tenantId, agentId, url, state.settings, 'config.url');
  } catch (err) {
    if (err instanceof RoostError && err.code === 'FORBIDDEN') throw new RoostError('FORBIDDEN', `an agent's webhook must be a public address: ${err.message}`);
    throw err;
  }
}

/**
 * What an agent sees of a channel. The tenant's channels are the owner's (REST keeps their config to the
 * owner role: a webhook URL can be a credential), so an agent sees only their type, name and which config
 * fields they have; its own channels, which it set itself, in full. Secrets are only ever named.
 */
function view(c: Channel): Record<string, unknown> {
  const common = { id: c.id, type: c.type, name: c.name, scope: c.agentId ? 'agent' : 'tenant', secretKeys: c.secretKeys, enabled: c.enabled };
  return c.agentId ? { ...common, config: c.config } : { ...common, configKeys: Object.keys(c.config) };
}
