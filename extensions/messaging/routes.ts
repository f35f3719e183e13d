// REST: invoking an agent (deliver without waiting), the MCP HTTP API's send-message (deliver and wait
// for the reply), and the tenant's messaging limits.
import { validate } from '../../protocol/validate.js';
import type { RouteHandler } from '../../sdk/extension.js';
import { created, ok } from '../../sdk/http.js';
import { requireRole } from '../../sdk/roles.js';
import { schema } from './context.js';
import { deliver } from './deliver.js';
import { sendAndWait } from './send.js';
import { SettingsStore, type MessagingSettings } from './settings.js';

export const routes: Record<string, RouteHandler> = {
  async 'POST /api/agents/:id/invoke'(req, ctx) {
    const body = validate<{ content: string; fromAgentId?: string; thread?: string }>(schema(ctx, 'invoke.json'), req.body);
    const sent = await deliver(ctx, req.auth.tenantId, { requestId: req.id }, { from: body.fromAgentId ?? null, to: req.params.id!, content: body.content, caller: req.auth.actor, ...(body.thread ? { thread: body.thread } : {}) });
    return created({ message: sent.message, sessionId: sent.sessionId, session: sent.session, thread: sent.thread });
  },

  async 'POST /api/mcp/send-message'(req, ctx) {
    const body = validate<{ from_agent: string; to_agent: string; message: string; thread?: string }>(schema(ctx, 'mcp-send-message.json'), req.body);
    const exchange = await sendAndWait(ctx, req.auth.tenantId, { requestId: req.id }, { from: body.from_agent, to: body.to_agent, content: body.message, caller: req.auth.actor, ...(body.thread ? { thread: body.thread } : {}) });
    return ok(exchange);
  },

  async 'GET /api/settings/messaging'(req, ctx) {
    return ok(await new SettingsStore(ctx.db).get(req.auth.tenantId));
  },

  async 'PUT /api/settings/messaging'(req, ctx) {
    requireRole(req.auth, 'owner', 'changing the messaging limits');
    const change = validate<Partial<MessagingSettings>>(schema(ctx, 'settings-put.json'), req.body);
    return ok(await new SettingsStore(ctx.db).update(req.auth.tenantId, change));
  },
};
