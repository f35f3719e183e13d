// Sending a message to an agent: record it and start a session for the recipient through the sessions
// extension (POST /api/sessions, source "agent"), as the caller. Shared by REST and WebSocket.
import { RoostError, notFound, validationError } from '../../protocol/errors.js';
import type { CallAs } from '../_shared/host-client.js';
import type { ExtensionContext } from '../_shared/extension.js';
import { stores } from './context.js';
import type { AgentMessage } from './messages.js';

export interface Invocation {
  toAgentId: string;
  fromAgentId: string | null;
  content: string;
}

export interface InvocationResult {
  message: AgentMessage;
  sessionId: string | null;
  /** The session as the sessions extension answered it. */
  session: unknown;
}

export async function invokeAgent(ctx: ExtensionContext, tenantId: string, as: CallAs, input: Invocation): Promise<InvocationResult> {
  const { agents, messages } = stores(ctx);
  const target = await agents.get(tenantId, input.toAgentId);
  if (!target) throw notFound(`agent ${input.toAgentId}`);
  if (input.fromAgentId !== null) {
    if (input.fromAgentId === target.id) throw validationError('an agent cannot invoke itself: fromAgentId equals the target agent');
    if (!(await agents.get(tenantId, input.fromAgentId))) throw notFound(`agent ${input.fromAgentId}`);
  }
  const reply = await ctx.host.call<Record<string, unknown>>('POST', '/api/sessions', { agentId: target.id, initialPrompt: input.content, source: 'agent' }, as);
  if (reply.status === 404 && reply.body?.code === 'ROUTE_NOT_FOUND') {
    throw new RoostError('EXTENSION_UNAVAILABLE', 'invoking an agent starts a session for it, and the sessions extension is not loaded; load it and retry');
  }
  if (reply.status >= 400) {
    const code = typeof reply.body?.code === 'string' ? reply.body.code : 'UPSTREAM_ERROR';
    const why = typeof reply.body?.error === 'string' ? reply.body.error : `status ${reply.status}`;
    throw new RoostError(code, `starting a session for agent ${target.id} failed: ${why}`, { status: reply.status });
  }
  const sessionId = sessionIdOf(reply.body);
  const message = await messages.record(tenantId, { from: input.fromAgentId, to: target.id, content: input.content, sessionId });
  const event = { type: 'agent_message', agentId: target.id, message };
  ctx.host.emit(`agent.${target.id}`, event, tenantId);
  if (input.fromAgentId !== null) ctx.host.emit(`agent.${input.fromAgentId}`, { ...event, agentId: input.fromAgentId }, tenantId);
  return { message, sessionId, session: reply.body };
}

function sessionIdOf(body: Record<string, unknown> | null): string | null {
  if (!body) return null;
  const nested = body.session as Record<string, unknown> | undefined;
  const id = body.id ?? body.sessionId ?? nested?.id;
  return typeof id === 'string' ? id : null;
}
