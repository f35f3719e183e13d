// GET/PUT /api/bridges/slack: the tenant owner's Slack connection. Credentials are sealed at rest and
// never returned; a new bot token is checked with auth.test, which also names the workspace (team id)
// that inbound events are matched to.
import { join } from 'node:path';
import { validationError } from '../../protocol/errors.js';
import { validate } from '../../protocol/validate.js';
import { mergeAgentMapping, requireOwner } from '../../sdk/bridge/configs.js';
import type { RouteHandler } from '../../sdk/extension.js';
import { ok } from '../../sdk/http.js';
import type { SlackBridge, SlackConfig } from './bridge.js';

interface ConfigPut {
  botToken?: string;
  signingSecret?: string;
  defaultAgentId?: string | null;
  channels?: Record<string, string>;
}

export function view(config: SlackConfig | undefined): Record<string, unknown> {
  if (!config) return { configured: false };
  const { teamId, botUserId, defaultAgentId, channels } = config.settings;
  return { configured: true, teamId, botUserId, defaultAgentId, channels, hasBotToken: !!config.secrets.botToken, hasSigningSecret: !!config.secrets.signingSecret, updatedAt: config.updatedAt };
}

export const configRoutes: Record<string, RouteHandler<SlackBridge>> = {
  async 'GET /api/bridges/slack'(req, _ctx, bridge) {
    requireOwner(req, 'slack');
    return ok(view(await bridge.configs.get(req.auth.tenantId)));
  },

  async 'PUT /api/bridges/slack'(req, ctx, bridge) {
    requireOwner(req, 'slack');
    const input = validate<ConfigPut>(join(ctx.init.plugin.dir, 'schemas', 'config-put.json'), req.body);
    const current = await bridge.configs.get(req.auth.tenantId);
    const botToken = input.botToken ?? current?.secrets.botToken;
    const signingSecret = input.signingSecret ?? current?.secrets.signingSecret;
    if (!botToken || !signingSecret) throw validationError('botToken and signingSecret are required the first time');
    const settings = {
      teamId: current?.settings.teamId ?? '',
      botUserId: current?.settings.botUserId ?? '',
      ...(await mergeAgentMapping(ctx.host, req, input, current?.settings)),
    };
    if (input.botToken || !current) Object.assign(settings, await bridge.identify(botToken));
    await bridge.configs.save(req.auth.tenantId, settings.teamId, settings, { botToken, signingSecret });
    ctx.host.audit('bridge.slack.configured', `bridge:slack`, { teamId: settings.teamId, botToken: input.botToken ? 'replaced' : 'kept', signingSecret: input.signingSecret ? 'replaced' : 'kept' });
    return ok(view(await bridge.configs.get(req.auth.tenantId)));
  },
};
