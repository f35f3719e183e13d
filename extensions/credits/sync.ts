// Wallets normally open when the agents extension announces a new agent (events.ts). A summary also
// walks the tenant's agent list, so wallets of agents created while this extension was down, and
// renamed agents, are caught up.
import type { CallAs } from '../../sdk/host-client.js';
import type { ExtensionContext } from '../../sdk/extension.js';
import { openWallet } from './agents-client.js';
import { agentsClient } from '../agents/contract.js';

const PAGE = 200;

export async function syncTenantWallets(ctx: ExtensionContext, as: CallAs, tenantId: string): Promise<void> {
  for (let offset = 0; ; offset += PAGE) {
    const reply = await agentsClient(ctx.host, as).list({ limit: PAGE, offset });
    if (reply.status !== 200 || !Array.isArray(reply.body?.agents)) return;
    for (const agent of reply.body.agents) await openWallet(ctx, tenantId, agent);
    if (offset + PAGE >= (reply.body.total ?? 0)) return;
  }
}
