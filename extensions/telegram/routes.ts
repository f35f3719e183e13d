// The Telegram bridge's routes: its configuration (owner only), Telegram's webhook (public, checked by
// the secret token), and the bridge contract's internal deliver and conversation routes.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { join } from 'node:path';
import type { Update } from 'grammy/types';
import { notFound, RoostError, validationError } from '../../protocol/errors.js';
import { checkJsonLimits, EDGE_JSON_LIMITS } from '../../protocol/json-limits.js';
import { validate } from '../../protocol/validate.js';
import { deliverReply, deliverSchema, liveOnly, SEND_WAIT_MS, sendReply, type DeliverBody } from '../../sdk/bridge/contract.js';
import type { ExtensionContext, RouteHandler } from '../../sdk/extension.js';
import { noContent, ok } from '../../sdk/http.js';
import { parseHttpUrl } from '../../sdk/outbound.js';
import { checkTarget, reachPolicy } from '../../sdk/reach.js';
import { requireRole } from '../../sdk/roles.js';
import { deliver } from './deliver.js';
import type { State } from './state.js';
import type { Mode } from './store.js';
import { apiFor, botOf, reachOf, telegram } from './telegram-api.js';
import { agentsClient } from '../agents/contract.js';

const DELIVER = deliverSchema('telegram');

const schema = (ctx: ExtensionContext, name: string) => join(ctx.init.plugin.dir, 'schemas', name);

interface ConfigInput {
  botToken?: string;
  mode: Mode;
  apiRoot?: string;
  webhookUrl?: string;
  webhookSecret?: string;
  defaultAgentId?: string | null;
}

export const routes: Record<string, RouteHandler<State>> = {
  async 'GET /api/bridges/telegram'(req, ctx, state) {
    requireRole(req.auth, 'owner', 'reading the Telegram bridge settings');
    const stored = await state.store.bot(req.auth.tenantId);
    const env = stored ? undefined : await botOf(state.store, ctx, req.auth.tenantId);
    return ok({
      configured: Boolean(stored ?? env),
      source: stored ? 'stored' : env ? 'environment' : null,
      mode: stored?.mode ?? null,
      apiRoot: stored?.apiRoot ?? env?.apiRoot ?? null,
      webhookUrl: stored?.webhookUrl ?? null,
      webhookPath: `/webhooks/telegram/${req.auth.tenantId}`,
      defaultAgentId: stored?.defaultAgentId ?? null,
      botUsername: stored?.botUsername ?? null,
      secretKeys: stored ? ['botToken', ...(stored.webhookSecret ? ['webhookSecret'] : [])] : [],
    });
  },

  async 'PUT /api/bridges/telegram'(req, ctx, state) {
    requireRole(req.auth, 'owner', 'configuring the Telegram bridge');
    const input = validate<ConfigInput>(schema(ctx, 'bridge-config.json'), req.body);
    // The agent must be one of the caller's tenant (another tenant's is as unknown as a missing one).
    if (input.defaultAgentId) {
      const agent = await agentsClient(ctx.host, { requestId: req.id }).get(input.defaultAgentId);
      if (agent.status !== 200) throw validationError(`body.defaultAgentId: agent ${input.defaultAgentId} not found`);
    }
    const { store, poller } = state;
    const current = await botOf(store, ctx, req.auth.tenantId);
    const botToken = input.botToken ?? current?.botToken;
    if (!botToken) throw validationError('body.botToken is required (no bot is configured yet)');
    // The root is checked against the tenant's reach now, and again as each request connects.
    const apiRoot = input.apiRoot !== undefined ? (await checkTarget(reachPolicy(ctx), req.auth.tenantId, input.apiRoot, 'body.apiRoot')).toString().replace(/\/+$/, '') : (current?.apiRoot ?? null);
    const bot = { botToken, apiRoot, reach: reachOf(ctx, req.auth.tenantId, apiRoot) };
    // The token and the API root are proved before anything is stored.
    const me = await telegram('getMe', () => apiFor(bot).getMe(), (user) => typeof user === 'object' && user !== null && typeof user.username === 'string');
    let webhookSecret: string | null = null;
    let webhookUrl: string | null = null;
    if (input.mode === 'webhook') {
      if (!input.webhookUrl) throw validationError('body.webhookUrl is required in webhook mode (the public URL of /webhooks/telegram/<tenant id>)');
      webhookUrl = parseHttpUrl(input.webhookUrl, 'body.webhookUrl').toString().replace(/\/+$/, '');
      webhookSecret = input.webhookSecret ?? randomBytes(32).toString('hex');
      await telegram('setWebhook', () => apiFor(bot).setWebhook(webhookUrl!, { secret_token: webhookSecret!, allowed_updates: ['message', 'callback_query'] }));
    } else {
      await telegram('deleteWebhook', () => apiFor(bot).deleteWebhook());
    }
    const defaultAgentId = input.defaultAgentId !== undefined ? input.defaultAgentId : (current?.defaultAgentId ?? null);
    await store.saveBot({ tenantId: req.auth.tenantId, botToken, webhookSecret, mode: input.mode, apiRoot, webhookUrl, defaultAgentId, botUsername: me.username });
    poller.restart(req.auth.tenantId);
    ctx.host.audit('telegram.configured', 'bridge:telegram', { mode: input.mode, botUsername: me.username, tokenReplaced: input.botToken !== undefined });
    return routes['GET /api/bridges/telegram']!(req, ctx, state);
  },

  async 'DELETE /api/bridges/telegram'(req, ctx, state) {
    requireRole(req.auth, 'owner', 'removing the Telegram bridge settings');
    const { store, poller } = state;
    const bot = await store.bot(req.auth.tenantId);
    if (!bot) throw notFound('Telegram bridge settings');
    if (bot.mode === 'webhook') await telegram('deleteWebhook', () => apiFor({ ...bot, reach: reachOf(ctx, bot.tenantId, bot.apiRoot) }).deleteWebhook()).catch(() => undefined);
    await store.removeBot(req.auth.tenantId);
    poller.restart(req.auth.tenantId);
    ctx.host.audit('telegram.removed', 'bridge:telegram', {});
    return noContent();
  },

  /** Telegram's webhook: public, so the secret token set with setWebhook is what proves the sender. */
  async 'POST /webhooks/telegram/:tenantId'(req, ctx, state) {
    const { store, handler } = state;
    const bot = await store.bot(req.params.tenantId!);
    if (!bot || bot.mode !== 'webhook' || !bot.webhookSecret) throw notFound('Telegram webhook');
    if (!sameSecret(req.headers['x-telegram-bot-api-secret-token'], bot.webhookSecret)) {
      throw new RoostError('AUTH_REQUIRED', 'the X-Telegram-Bot-Api-Secret-Token header is missing or wrong');
    }
    const update = parseUpdate(req.body);
    // Answered at once: the agent's reply goes out through the Bot API when it is ready. handle() logs
    // its own failures; this catch is for anything that escapes it.
    void handler.handle(bot.tenantId, { ...bot, reach: reachOf(ctx, bot.tenantId, bot.apiRoot) }, update).catch((err: Error) => ctx.host.log('error', `telegram: update ${update.update_id}: ${err.message}`));
    return ok({ ok: true });
  },

  async 'POST /api/internal/bridges/telegram/deliver'(req, ctx, state) {
    const input = validate<DeliverBody>(DELIVER, req.body);
    const { store, sender } = state;
    return deliverReply(await deliver(store, sender, req.auth.tenantId, (await botOf(store, ctx, req.auth.tenantId)) !== undefined, input));
  },

  /** Live conversations only: a chat whose session stopped or failed is not one until it talks again. */
  async 'GET /api/internal/bridges/telegram/conversations'(req, ctx, state) {
    const chats = await liveOnly(ctx.host, req.auth.tenantId, await state.store.chats(req.auth.tenantId), (c) => c.sessionId);
    return ok({ conversations: chats.map((c) => ({ bridge: 'telegram', conversationId: c.chatId, agentId: c.agentId, sessionId: c.sessionId, title: c.title, lastActivityAt: c.lastActivityAt })) });
  },

  async 'POST /api/internal/bridges/telegram/conversations/:conversationId/send'(req, ctx, state) {
    const { text, key } = validate<{ text: string; key?: string }>(schema(ctx, 'send.json'), req.body);
    const { store, sender } = state;
    const chat = await store.chat(req.auth.tenantId, req.params.conversationId!);
    if (!chat) throw notFound(`Telegram conversation ${req.params.conversationId}`);
    if (!(await botOf(store, ctx, req.auth.tenantId))) throw new RoostError('CONFLICT', 'no Telegram bot is configured for this tenant');
    const status = await sender.say(req.auth.tenantId, chat.chatId, text, { waitMs: SEND_WAIT_MS, ...(key ? { key: `send:${req.auth.tenantId}:${key}` } : {}) });
    await store.touchChat(req.auth.tenantId, chat.chatId);
    return sendReply(status);
  },
};

/** The raw body (a raw route, so the kernel passes the headers) as an update, held to the JSON limits first. */
function parseUpdate(body: unknown): Update {
  let update: unknown;
  try {
    checkJsonLimits(String(body ?? ''), EDGE_JSON_LIMITS);
    update = JSON.parse(String(body ?? ''));
  } catch (err) {
    throw validationError(`the body is not a JSON Telegram update: ${(err as Error).message}`);
  }
  if (typeof update !== 'object' || update === null || !Number.isSafeInteger((update as Update).update_id)) throw validationError('the body must be a Telegram update with an integer update_id');
  return update as Update;
}

/** Constant-time comparison (of digests, so the lengths match too). */
function sameSecret(given: string | undefined, expected: string): boolean {
  if (typeof given !== 'string') return false;
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(given), digest(expected));
}
