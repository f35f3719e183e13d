// GET/PUT /api/bridges/discord (the tenant owner's Discord application: its id and public key for
// verifying interactions, the bot token sealed and never returned, channel→agent mapping, voice) and
// GET /api/voice-cache (the voice cache's figures for the tenant).
import { join } from 'node:path';
import { validationError } from '../../protocol/errors.js';
import { validate } from '../../protocol/validate.js';
import { mergeAgentMapping, requireOwner } from '../../sdk/bridge/configs.js';
import type { RouteHandler } from '../../sdk/extension.js';
import { ok } from '../../sdk/http.js';
import type { DiscordBridge, DiscordConfig, DiscordSettings } from './bridge.js';

interface ConfigPut {
  applicationId?: string;
  publicKey?: string;
  botToken?: string;
  defaultAgentId?: string | null;
  channels?: Record<string, string>;
  voice?: Partial<DiscordSettings['voice']>;
}

const DEFAULT_VOICE = { channels: [], voice: 'alloy', model: 'tts-1' };

export function view(bridge: DiscordBridge, config: DiscordConfig | undefined): Record<string, unknown> {
  if (!config) return { configured: false };
  return { configured: true, ...config.settings, hasBotToken: !!config.secrets.botToken, gateway: bridge.gateways.status(config.tenantId), updatedAt: config.updatedAt };
}

export const configRoutes: Record<string, RouteHandler<DiscordBridge>> = {
  async 'GET /api/bridges/discord'(req, _ctx, bridge) {
    requireOwner(req, 'discord');
    return ok(view(bridge, await bridge.configs.get(req.auth.tenantId)));
  },

  async 'PUT /api/bridges/discord'(req, ctx, bridge) {
    requireOwner(req, 'discord');
    const input = validate<ConfigPut>(join(ctx.init.plugin.dir, 'schemas', 'config-put.json'), req.body);
    const current = await bridge.configs.get(req.auth.tenantId);
    const applicationId = input.applicationId ?? current?.settings.applicationId;
    const publicKey = input.publicKey ?? current?.settings.publicKey;
    if (!applicationId || !publicKey) throw validationError('applicationId and publicKey are required the first time');
    const settings: DiscordSettings = {
      applicationId,
      publicKey: publicKey.toLowerCase(),
      ...(await mergeAgentMapping(ctx.host, req, input, current?.settings)),
      voice: { ...DEFAULT_VOICE, ...current?.settings.voice, ...input.voice },
    };
    const botToken = input.botToken ?? current?.secrets.botToken;
    await bridge.configs.save(req.auth.tenantId, applicationId, settings, botToken ? { botToken } : {});
    ctx.host.audit('bridge.discord.configured', 'bridge:discord', { applicationId, botToken: input.botToken ? 'replaced' : botToken ? 'kept' : 'none' });
    // A new or replaced bot token connects (or reconnects) to the Gateway now.
    await bridge.gateways.supervise();
    return ok(view(bridge, await bridge.configs.get(req.auth.tenantId)));
  },

  async 'GET /api/voice-cache'(req, _ctx, bridge) {
    requireOwner(req, 'discord');
    return ok(await bridge.speech.cache.stats(req.auth.tenantId));
  },
};
