// Each agent's opt-in to outcome context in its prompts (off by default): when on, a new runner of its
// sessions (work tasks' included) carries the tenant's recent outcomes in its system prompt, the text
// GET /api/feedback/context answers for the last 7 days.
import { join } from 'node:path';
import { validate } from '../../protocol/validate.js';
import type { ExtensionContext, RouteHandler, RouteRequest } from '../../sdk/extension.js';
import { ok } from '../../sdk/http.js';
import { agentById } from '../agents/contract.js';
import { FEEDBACK_ROUTES, type PromptContext } from './contract.js';
import { outcomeContext } from './routes.js';

const CONTEXT_DAYS = 7;

/** The agent named by the path, of the caller's tenant (another tenant's answers 404 as an unknown one). */
async function agentOfPath(req: RouteRequest, ctx: ExtensionContext): Promise<string> {
  return (await agentById(ctx.host, { requestId: req.id }, req.params.id!)).id;
}

async function optedIn(ctx: ExtensionContext, tenantId: string, agentId: string): Promise<boolean> {
  const row = await ctx.db('feedback_agent_settings').where({ tenant_id: tenantId, agent_id: agentId }).first('prompt_context');
  return Boolean(row?.prompt_context);
}

export const settingsRoutes: Record<string, RouteHandler> = {
  async 'GET /api/agents/:id/feedback-settings'(req, ctx) {
    const agentId = await agentOfPath(req, ctx);
    return ok({ agentId, promptContext: await optedIn(ctx, req.auth.tenantId, agentId) });
  },

  async 'PUT /api/agents/:id/feedback-settings'(req, ctx) {
    const { promptContext } = validate<{ promptContext: boolean }>(join(ctx.init.plugin.dir, 'schemas', 'agent-settings-put.json'), req.body);
    const agentId = await agentOfPath(req, ctx);
    await ctx.db('feedback_agent_settings')
      .insert({ tenant_id: req.auth.tenantId, agent_id: agentId, prompt_context: promptContext, updated_at: new Date().toISOString() })
      .onConflict(['tenant_id', 'agent_id']).merge();
    ctx.host.audit('feedback.agent_settings_updated', `agent:${agentId}`, { promptContext });
    return ok({ agentId, promptContext });
  },

  /** Called by sessions as the session's tenant for each new runner: no text unless the agent opted in. */
  async [FEEDBACK_ROUTES.promptContext](req, ctx) {
    const agentId = req.params.id!;
    const on = await optedIn(ctx, req.auth.tenantId, agentId);
    return ok({ optedIn: on, text: on ? await outcomeContext(ctx.db, req.auth.tenantId, CONTEXT_DAYS) : '' } satisfies PromptContext);
  },
};
