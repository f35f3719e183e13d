// MCP over Streamable HTTP at /mcp: authenticates the caller (an agent's session token or an API key),
// rate-limits, and hands the request to the tool server in sdk-server.ts. The MCP SDK loads on the
// first /mcp request rather than with the kernel: it is the largest import of the server and adds
// about 0.2 s to every start (see docs/performance.md).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { RoostError, toRoostError } from '../../protocol/errors.js';
import { bearerToken, type Identity } from '../auth/identity.js';
import type { Kernel } from '../kernel.js';
import { McpTokens } from './tokens.js';

let sdkServer: Promise<typeof import('./sdk-server.js')> | undefined;

export function createMcpHandler(k: Kernel): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return async (req, res) => {
    let identity: Identity;
    try {
      identity = await identify(k, req);
      if (identity.keyHash !== null || !identity.local) k.rateLimiter.take(identity.keyHash ?? identity.actor);
    } catch (err) {
      const error = toRoostError(err);
      res.writeHead(error.status, { 'content-type': 'application/json', ...(error.status === 401 ? { 'www-authenticate': 'Bearer realm="roost"' } : {}) });
      return void res.end(JSON.stringify(error.toBody()));
    }
    try {
      sdkServer ??= import('./sdk-server.js');
      await (await sdkServer).serveMcp(k, identity, req, res);
    } catch (err) {
      k.log('error', `mcp: ${err instanceof Error ? err.stack : String(err)}`);
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify(new RoostError('INTERNAL', 'internal error').toBody()));
      }
    }
  };
}

/** Agents present a session token; people and scripts may use their API key. */
async function identify(k: Kernel, req: IncomingMessage): Promise<Identity> {
  const token = bearerToken(req);
  if (token && McpTokens.looksLikeToken(token)) {
    const agent = await k.mcpTokens.resolve(token);
    if (!agent) throw new RoostError('INVALID_API_KEY', 'this MCP token is unknown or expired');
    return agent;
  }
  return k.auth.identify(req);
}
