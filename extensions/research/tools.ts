// The research tools: svc_web_search, svc_browser, svc_deep_research. Their arguments were validated
// by the kernel against the schemas the manifest names.
import type { ToolReply } from '../../protocol/messages.js';
import type { ExtensionContext, ToolHandler } from '../../sdk/extension.js';
import type { Reach } from '../../sdk/outbound.js';
import { reachFor, reachPolicy } from '../../sdk/reach.js';
import { Chromium } from './browser.js';
import { readConfig } from './config.js';
import { deepResearch } from './deep-research.js';
import { pageLinks, pageScreenshot, pageText } from './readers.js';
import { webSearch } from './search.js';

const json = (value: unknown): ToolReply => ({ content: [{ type: 'text', text: JSON.stringify(value) }] });

/** The extension's running state (what setup returns): the one browser its calls share. */
export interface Research {
  chromium: Chromium;
}

/** The browser starts on first use (browser.ts), so building it here launches nothing. */
export function startResearch(ctx: ExtensionContext): Research {
  return { chromium: new Chromium(async () => (await readConfig(ctx.host)).chromiumPath) };
}

export async function stopResearch(_ctx: ExtensionContext, state: Research): Promise<void> {
  await state.chromium.close();
}

/** Where the browser may connect for this caller's tenant (sdk/reach.ts). */
const reachOf = (ctx: ExtensionContext, tenantId: string) => {
  const policy = reachPolicy(ctx);
  return (port: number): Reach => reachFor(policy, tenantId, port);
};

export const tools: Record<string, ToolHandler<Research>> = {
  async svc_web_search(args, _caller, ctx) {
    const query = String(args.query);
    const results = await webSearch(await readConfig(ctx.host), query, typeof args.count === 'number' ? args.count : 5);
    return json({ query, results });
  },

  async svc_browser(args, caller, ctx, { chromium }) {
    const action = (args.action as string | undefined) ?? 'text';
    return chromium.withPage(String(args.url), reachOf(ctx, caller.tenantId), async (page, info): Promise<ToolReply> => {
      if (action === 'links') return json({ ...info, ...(await pageLinks(page)) });
      if (action === 'screenshot') {
        const png = await pageScreenshot(page);
        return { content: [{ type: 'text', text: JSON.stringify(info) }, { type: 'image', data: png.toString('base64'), mimeType: 'image/png' }] };
      }
      return json({ ...info, ...(await pageText(page)) });
    });
  },

  async svc_deep_research(args, caller, ctx, { chromium }) {
    const depth = typeof args.depth === 'number' ? args.depth : 1;
    const reader = { chromium, reachOf: reachOf(ctx, caller.tenantId) };
    return json(await deepResearch(ctx.host, await readConfig(ctx.host), reader, caller, String(args.question), depth));
  },
};
