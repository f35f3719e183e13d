// svc_send_chat_message and svc_send_chat_image: an agent writes to a Discord channel as its tenant's bot.
import type { ToolHandler } from '../_shared/extension.js';
import type { DiscordBridge } from './bridge.js';
import { loadImage } from './image.js';

const result = (value: Record<string, unknown>) => ({ content: [{ type: 'text' as const, text: JSON.stringify(value) }], structuredContent: value });

export function tools(bridge: () => DiscordBridge): Record<string, ToolHandler> {
  return {
    async svc_send_chat_message(args, caller) {
      const channelId = String(args.channel_id);
      const token = bridge().botToken(await bridge().configs.get(caller.tenantId));
      const message = await bridge().channelMessage(token, channelId, { content: String(args.content), allowed_mentions: { parse: [] } });
      return result({ sent: true, channelId, messageId: message.id });
    },

    async svc_send_chat_image(args, caller) {
      const channelId = String(args.channel_id);
      const token = bridge().botToken(await bridge().configs.get(caller.tenantId));
      const image = await loadImage(String(args.image), bridge().allowPrivateUrls);
      const caption = typeof args.caption === 'string' ? args.caption : '';
      const message = await bridge().channelMessage(token, channelId, { content: caption, allowed_mentions: { parse: [] } }, [image]);
      return result({ sent: true, channelId, messageId: message.id, bytes: image.data.length, contentType: image.contentType });
    },
  };
}
