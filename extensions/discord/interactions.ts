// POST /discord/interactions: Discord's HTTP interactions. Verified first (Ed25519 over timestamp+body
// with the application's public key, via discord-interactions; timestamps older than five minutes are
// refused), each interaction handled once (a replayed one is refused), rate-limited per user and per
// channel, then PING, slash commands and button presses.
import { InteractionResponseType, InteractionType, verifyKey } from 'discord-interactions';
import { RoostError, validationError } from '../../protocol/errors.js';
import type { RouteHandler, RouteRequest } from '../../sdk/extension.js';
import { ok } from '../../sdk/http.js';
import type { DiscordBridge, DiscordConfig } from './bridge.js';
import { command } from './commands.js';
import { component } from './components.js';
import { channelOf, type Interaction } from './interaction.js';

const WINDOW_SECONDS = 300;

export const interactionRoutes: Record<string, RouteHandler<DiscordBridge>> = {
  async 'POST /discord/interactions'(req, _ctx, bridge) {
    const body = typeof req.body === 'string' ? req.body : '';
    if (body === '') throw validationError('the request has no body');
    const interaction = parse(body);
    const config = await verified(bridge, req, body, interaction);
    if (interaction.type === InteractionType.PING) return ok({ type: InteractionResponseType.PONG });
    if (!(await bridge.store.firstSight(`interaction:${interaction.id}`))) throw new RoostError('CONFLICT', `interaction ${interaction.id} was already handled (a replay?)`);
    const user = interaction.member?.user?.id ?? interaction.user?.id ?? 'unknown';
    if (!bridge.inbound.take(`user:${config.tenantId}:${user}`) || !bridge.inbound.take(`channel:${config.tenantId}:${channelOf(interaction) ?? 'none'}`)) {
      return ok({ type: InteractionResponseType.CHANNEL_MESSAGE_WITH_SOURCE, data: { content: 'Too many requests: wait a minute before sending more.', flags: 64 } });
    }
    if (interaction.type === InteractionType.APPLICATION_COMMAND) return ok(await command(bridge, config, interaction));
    if (interaction.type === InteractionType.MESSAGE_COMPONENT) return ok(await component(bridge, config, interaction));
    return ok({ type: InteractionResponseType.CHANNEL_MESSAGE_WITH_SOURCE, data: { content: 'This kind of interaction is not handled here.', flags: 64 } });
  },
};

function parse(body: string): Interaction {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    throw validationError('the interaction is not JSON');
  }
  const i = value as Partial<Interaction> | null;
  if (!i || typeof i !== 'object' || typeof i.id !== 'string' || typeof i.application_id !== 'string' || typeof i.type !== 'number' || typeof i.token !== 'string') {
    throw validationError('the interaction needs id, application_id, type and token');
  }
  return i as Interaction;
}

async function verified(bridge: DiscordBridge, req: RouteRequest, body: string, interaction: Interaction): Promise<DiscordConfig> {
  const config = await bridge.configs.byRouteKey(interaction.application_id);
  if (!config) throw new RoostError('NOT_FOUND', `no tenant has connected Discord application ${interaction.application_id}`);
  const signature = req.headers['x-signature-ed25519'] ?? '';
  const timestamp = req.headers['x-signature-timestamp'] ?? '';
  if (!/^[0-9a-f]{128}$/i.test(signature) || !/^\d{1,12}$/.test(timestamp) || !(await verifyKey(body, signature, timestamp, config.settings.publicKey))) {
    throw new RoostError('INVALID_SIGNATURE', 'the Discord signature does not match', { status: 401 });
  }
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > WINDOW_SECONDS) {
    throw new RoostError('INVALID_SIGNATURE', 'the interaction timestamp is outside the five-minute window (a replay?)', { status: 401 });
  }
  return config;
}
