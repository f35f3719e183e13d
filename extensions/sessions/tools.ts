// MCP tools the sessions extension offers agents. The caller's token names its session.
import type { ToolHandler } from '../../sdk/extension.js';
import type { Sessions } from './state.js';

const text = (value: unknown) => ({ content: [{ type: 'text' as const, text: JSON.stringify(value) }] });
const failure = (message: string) => ({ content: [{ type: 'text' as const, text: message }], isError: true });

export const sessionTools: Record<string, ToolHandler<Sessions>> = {
  async svc_extend_timeout(args, caller, _ctx, { manager }) {
    if (!caller.sessionId) return failure('svc_extend_timeout extends the current session: call it from a session (with its token)');
    const timeoutAt = await manager.extendTimeout(caller.tenantId, caller.sessionId, Number(args.minutes));
    return text({ sessionId: caller.sessionId, addedMinutes: Number(args.minutes), timeoutAt });
  },
};
