// The bridge tools (docs/bridges.md). The bridges are found, not listed: every loaded extension that
// declares the contract's conversation routes (/api/internal/bridges/<name>/conversations) is one, so a
// bridge added or unloaded is seen at once. svc_bridge_sessions asks each for the caller's tenant's live
// conversations, each with a deadline, reporting one that fails, so one bridge's outage never holds up
// the answer (or the session that asked). svc_bridge_request queues a message into one conversation: the
// bridge answers within seconds "sent" or "queued" (it goes out when the chat service takes it), and the
// same session sending the same message again within ten minutes gets that status, not a second message.
import { createHash } from 'node:crypto';
import { runExtension, type ToolHandler } from '../../sdk/extension.js';
import type { HostClient } from '../../sdk/host-client.js';

const PREFIX = '/api/internal/bridges/';
const LIST_ROUTE = /^\/api\/internal\/bridges\/([a-z][a-z0-9-]*)\/conversations$/;
/** Longer than a bridge's own send wait (it answers "queued" after a few seconds). */
const DEADLINE_MS = 8_000;
const REPEAT_WINDOW_MS = 10 * 60_000;

type Reply = { status: number; body: { error?: string; code?: string; [field: string]: unknown } | null };

const result = (value: Record<string, unknown>) => ({ content: [{ type: 'text' as const, text: JSON.stringify(value) }], structuredContent: value });
const failure = (text: string) => ({ content: [{ type: 'text' as const, text }], isError: true });

/** The loaded bridges: the extensions that serve the contract's conversation list. */
export async function loadedBridges(host: HostClient): Promise<string[]> {
  const routes = await host.routes(PREFIX);
  return [...new Set(routes.filter((r) => r.method === 'GET').map((r) => LIST_ROUTE.exec(r.path)?.[1]).filter((b): b is string => b !== undefined))].sort();
}

/** A bridge's route, or undefined when it did not answer in time. */
async function ask(host: HostClient, tenantId: string, method: string, path: string, body?: unknown): Promise<Reply | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), DEADLINE_MS)));
  try {
    return await Promise.race([host.call(method, path, body, { tenantId }) as Promise<Reply>, late]);
  } finally {
    clearTimeout(timer);
  }
}

const unknownBridge = (bridge: string, loaded: string[]) => failure(`no loaded extension serves a chat bridge named "${bridge}"; loaded bridges: ${loaded.join(', ') || 'none'}`);

const tools: Record<string, ToolHandler> = {
  async svc_bridge_sessions(args, caller, ctx) {
    const loaded = await loadedBridges(ctx.host);
    if (typeof args.bridge === 'string' && !loaded.includes(args.bridge)) return unknownBridge(args.bridge, loaded);
    const bridges = typeof args.bridge === 'string' ? [args.bridge] : loaded;
    const status: Record<string, string> = {};
    const lists = await Promise.all(
      bridges.map(async (bridge) => {
        const reply = await ask(ctx.host, caller.tenantId, 'GET', `${PREFIX}${bridge}/conversations`).catch((err: Error): Reply => ({ status: 500, body: { error: err.message } }));
        if (!reply) status[bridge] = `no answer within ${DEADLINE_MS / 1000} s`;
        else if (reply.status === 404 && reply.body?.code === 'ROUTE_NOT_FOUND') status[bridge] = 'not loaded';
        else if (reply.status !== 200 || !Array.isArray(reply.body?.conversations)) status[bridge] = `failed: ${reply.body?.error ?? `status ${reply.status}`}`;
        else {
          status[bridge] = 'ok';
          return reply.body.conversations as Array<{ lastActivityAt: string }>;
        }
        return [];
      }),
    );
    const conversations = lists.flat().sort((a, b) => b.lastActivityAt.localeCompare(a.lastActivityAt));
    return result({ conversations, bridges: status });
  },

  async svc_bridge_request(args, caller, ctx) {
    const bridge = String(args.bridge);
    const id = String(args.conversation_id);
    const message = String(args.message);
    const loaded = await loadedBridges(ctx.host);
    if (!loaded.includes(bridge)) return unknownBridge(bridge, loaded);
    // The same session repeating the same send (a retry after a lost answer) is the same message.
    const key = createHash('sha256').update(JSON.stringify([caller.sessionId ?? caller.agentId ?? '', bridge, id, message, Math.floor(Date.now() / REPEAT_WINDOW_MS)])).digest('hex');
    const reply = await ask(ctx.host, caller.tenantId, 'POST', `${PREFIX}${bridge}/conversations/${encodeURIComponent(id)}/send`, { text: message, key });
    if (!reply) return result({ status: 'unknown', bridge, conversationId: id, note: `the ${bridge} bridge did not answer within ${DEADLINE_MS / 1000} s; the message may still be sent: calling again with the same message does not send it twice` });
    if (reply.status === 404 && reply.body?.code === 'ROUTE_NOT_FOUND') return failure(`the ${bridge} bridge is not loaded`);
    if (reply.status !== 200) return failure(reply.body?.error ?? `the ${bridge} bridge answered ${reply.status}`);
    const body = reply.body!;
    return result({
      sent: body.status === 'sent', status: body.status, bridge, conversationId: id, externalId: body.externalId ?? null, outboxId: body.id,
      ...(body.status === 'queued' ? { note: `queued: the ${bridge} bridge sends it when the chat service takes it${body.lastError ? ` (last error: ${String(body.lastError)})` : ''}; do not send it again` } : {}),
    });
  },
};

runExtension({ tools });
