// MCP tools of A2A: discover a card, run a task on a remote server, list the agents of registered remotes.
import { validate } from '../../protocol/validate.js';
import type { ToolHandler } from '../../sdk/extension.js';
import { schema } from './context.js';
import { agentDirectory } from './directory.js';
import { discoverCard } from './remote-client.js';
import { invokeRemote } from './rpc-client.js';

const DEFAULT_WAIT_SECONDS = 120;
const json = (value: unknown) => ({ content: [{ type: 'text', text: JSON.stringify(value) }] });

export const tools: Record<string, ToolHandler> = {
  async svc_discover_agent(args, caller, ctx) {
    const { url } = validate<{ url: string }>(schema(ctx, 'tool-discover-agent.json'), args, 'arguments');
    const found = await discoverCard(ctx, caller.tenantId, url);
    return json({ url: found.url, remote: found.remote && { id: found.remote.id, name: found.remote.name }, card: found.card });
  },

  async svc_invoke_remote_agent(args, caller, ctx) {
    const input = validate<{ url: string; message: string; agent?: string; timeout_seconds?: number }>(schema(ctx, 'tool-invoke-remote-agent.json'), args, 'arguments');
    const result = await invokeRemote(ctx, caller.tenantId, { url: input.url, message: input.message, ...(input.agent ? { agent: input.agent } : {}), timeoutSeconds: input.timeout_seconds ?? DEFAULT_WAIT_SECONDS });
    return json(result);
  },

  async svc_agent_directory(args, caller, ctx) {
    const { refresh } = validate<{ refresh?: boolean }>(schema(ctx, 'tool-agent-directory.json'), args, 'arguments');
    return json(await agentDirectory(ctx, caller.tenantId, refresh === true));
  },
};
