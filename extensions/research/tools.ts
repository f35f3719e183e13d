// The research tools: svc_web_search, svc_browser, svc_deep_research. Their arguments were validated
// by the kernel against the schemas the manifest names.
import type { ToolReply } from '../../protocol/messages.js';
import type { ExtensionContext, ToolHandler } from '../../sdk/extension.js';
import type { Reach } from '../../sdk/outbound.js';
import { reachFor, reachPolicy, type ReachPolicy } from '../../sdk/reach.js';
import { Chromium } from './browser.js';
import { readConfig } from './config.js';
import { deepResearch } from './deep-research.js';
import { pageLinks, pageScreenshot, pageText } from './readers.js';
import { webSearch } from './search.js';

const json = (value: unknown): ToolReply => ({ content: [{ type: 'text', text: JSON.stringify(value) }] });

let chromium: Chromium | undefined;
const browserOf = (ctx: ExtensionContext) => (chromium ??= new Chromium(async () => (await readConfig(ctx.host)).chromiumPath));

let policy: ReachPolicy | undefined;
/** Where the browser may connect for this caller's tenant (sdk/reach.ts). */
const reachOf = (ctx: ExtensionContext, tenantId: string) => {
  const known = (policy ??= reachPolicy(ctx));
  return (port: number): Reach => reachFor(known, tenantId, port);
};

export async function closeBrowser(): Promise<void> {
  await chromium?.close();
}

export const tools: Record<string, ToolHandler> = {
  async svc_web_search(args, _caller, ctx) {
    const query = String(args.query);
    const results = await webSearch(await readConfig(ctx.host), query, typeof args.count === 'number' ? args.count : 5);
    return json({ query, results });
  },

  async svc_browser(args, caller, ctx) {
    const action = (args.action as string | undefined) ?? 'text';
    return browserOf(ctx).withPage(String(args.url), reachOf(ctx, caller.tenantId), async (page, info): Promise<ToolReply> => {
      if (action === 'links') return json({ ...info, ...(await pageLinks(page)) });
      if (action === 'screenshot') {
        const png = await pageScreenshot(page);
        return { content: [{ type: 'text', text: JSON.stringify(info) }, { type: 'image', data: png.toString('base64'), mimeType: 'image/png' }] };
      }
      return json({ ...info, ...(await pageText(page)) });
    });
  },

  async svc_deep_research(args, caller, ctx) {
    const depth = typeof args.depth === 'number' ? args.depth : 1;
    const reader = { chromium: browserOf(ctx), reachOf: reachOf(ctx, caller.tenantId) };
    return json(await deepResearch(ctx.host, await readConfig(ctx.host), reader, caller, String(args.question), depth));
  },
};
