// The bridge tools (docs/bridges.md): svc_bridge_sessions asks every known bridge for the caller's
// tenant's conversations, each with a deadline, skipping a bridge that is not loaded and reporting one
// that fails, so one bridge's outage never holds up the answer (or the session that asked).
import { runExtension, type ToolHandler } from '../_shared/extension.js';
import type { HostClient } from '../_shared/host-client.js';

export const KNOWN_BRIDGES = ['slack', 'telegram', 'discord'] as const;
const DEADLINE_MS = 5_000;

type Reply = { status: number; body: { error?: string; code?: string; [field: string]: unknown } | null };

const result = (value: Record<string, unknown>) => ({ content: [{ type: 'text' as const, text: JSON.stringify(value) }], structuredContent: value });
const failure = (text: string) => ({ content: [{ type: 'text' as const, text }], isError: true });

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

const notLoaded = (reply: Reply) => (reply.status === 404 && reply.body?.code === 'ROUTE_NOT_FOUND') || reply.status === 503;

const tools: Record<string, ToolHandler> = {
  async svc_bridge_sessions(args, caller, ctx) {
    const bridges = typeof args.bridge === 'string' ? [args.bridge] : [...KNOWN_BRIDGES];
    const status: Record<string, string> = {};
    const lists = await Promise.all(
      bridges.map(async (bridge) => {
        const reply = await ask(ctx.host, caller.tenantId, 'GET', `/api/internal/bridges/${bridge}/conversations`).catch((err: Error): Reply => ({ status: 500, body: { error: err.message } }));
        if (!reply) status[bridge] = `no answer within ${DEADLINE_MS / 1000} s`;
        else if (notLoaded(reply)) status[bridge] = 'not loaded';
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
    const reply = await ask(ctx.host, caller.tenantId, 'POST', `/api/internal/bridges/${bridge}/conversations/${encodeURIComponent(id)}/send`, { text: String(args.message) });
    if (!reply) return failure(`the ${bridge} bridge did not answer within ${DEADLINE_MS / 1000} s`);
    if (notLoaded(reply)) return failure(`the ${bridge} bridge is not loaded`);
    if (reply.status !== 200) return failure(reply.body?.error ?? `the ${bridge} bridge answered ${reply.status}`);
    return result({ sent: true, bridge, conversationId: id, externalId: reply.body?.externalId });
  },
};

runExtension({ tools });
