// MCP over Streamable HTTP at /mcp: checks Host and Origin (the MCP spec asks servers to), answers CORS
// preflights from listed origins, authenticates the caller (an agent's session token or an API key),
// rate-limits, reads the body within the 1 MiB limit and the JSON limits, and hands the parsed request
// to the tool server in sdk-server.ts (a JSON-RPC batch only from a client older than 2025-06-18, the
// version that removed them). Errors before authentication are `{error, code}` like REST;
// errors about the body are JSON-RPC errors, as an MCP client expects. The MCP SDK loads on the first
// /mcp request rather than with the kernel: it is the largest import of the server and adds about
// 0.2 s to every start (see docs/performance.md).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { retryAfterOf, RoostError, toRoostError } from '../../protocol/errors.js';
import { EDGE_JSON_LIMITS, scanJsonLimits } from '../../protocol/json-limits.js';
import { bearerToken, type Identity } from '../auth/identity.js';
import { browserPolicy, browserRefusal, corsHeaders, preflightHeaders, recordRefusal } from '../http/browser-guard.js';
import type { Kernel } from '../kernel.js';
import { bearerChallenge, mcpResource, type McpResource } from './resource.js';
import { McpTokens } from './tokens.js';

/** What this module uses of the kernel. */
export type McpFrontDeps = Pick<Kernel, 'audit' | 'auth' | 'config' | 'dispatcher' | 'log' | 'mcpTokens' | 'rateLimiter' | 'registry' | 'version'>;

let sdkServer: Promise<typeof import('./sdk-server.js')> | undefined;

/** JSON-RPC error codes the SDK uses for the same failures. */
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const SERVER_ERROR = -32000;

export function createMcpHandler(k: McpFrontDeps): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const browsers = browserPolicy(k.config);
  return async (req, res) => {
    let identity: Identity;
    const resource = mcpResource(k, req);
    try {
      const foreign = browserRefusal(browsers, req);
      if (foreign) {
        await recordRefusal(k, req, `${req.method} /mcp`, foreign);
        throw foreign;
      }
      const preflight = preflightHeaders(browsers, req);
      if (preflight) return void res.writeHead(204, preflight).end();
      for (const [name, value] of Object.entries(corsHeaders(browsers, req))) res.setHeader(name, value);
      identity = await identify(k, req, resource);
      if (identity.keyHash !== null || !identity.local) await k.rateLimiter.take(identity.keyHash ?? identity.actor);
    } catch (err) {
      const error = toRoostError(err);
      // Where an authorization server offers sign-in, a refused token is RFC 6750's invalid_token (401),
      // so an OAuth client refreshes it or signs in again; otherwise it stays a 403 as for every key.
      const invalidToken = error.code === 'INVALID_API_KEY' && resource.metadataUrl !== undefined;
      const status = invalidToken ? 401 : error.status;
      res.writeHead(status, {
        'content-type': 'application/json',
        ...(status === 401 ? { 'www-authenticate': bearerChallenge(resource, invalidToken ? error.message : undefined) } : {}),
        ...(retryAfterOf(error) === undefined ? {} : { 'retry-after': String(retryAfterOf(error)) }),
      });
      return void res.end(JSON.stringify(error.toBody()));
    }
    // Stateless: the server never sends on its own, so it offers no SSE stream (the MCP spec's answer is
    // 405). A GET held open would also keep every graceful shutdown waiting for its drain deadline.
    if (req.method === 'GET') {
      return void res.writeHead(405, { 'content-type': 'application/json', allow: 'POST, DELETE' }).end(JSON.stringify({ error: 'this MCP server sends no stream of its own: POST requests to /mcp', code: 'METHOD_NOT_ALLOWED' }));
    }
    let body: unknown;
    if (req.method === 'POST') {
      const read = await readJsonBody(req, k.config.bodyLimitBytes).catch((err: unknown) => err);
      if (read instanceof JsonRpcFailure) return read.send(res);
      if (read instanceof Error) return void res.destroy(read);
      const batchRefused = refuseBatch(req, read);
      if (batchRefused) return batchRefused.send(res);
      body = read;
    }
    try {
      sdkServer ??= import('./sdk-server.js');
      await (await sdkServer).serveMcp(k, identity, req, res, body);
    } catch (err) {
      k.log('error', `mcp: ${err instanceof Error ? err.stack : String(err)}`);
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify(new RoostError('INTERNAL', 'internal error').toBody()));
      }
    }
  };
}

/** Agents present a session token; people and scripts may use their API key, or an access token for /mcp. */
async function identify(k: McpFrontDeps, req: IncomingMessage, resource: McpResource): Promise<Identity> {
  const token = bearerToken(req);
  if (token && McpTokens.looksLikeToken(token)) {
    const agent = await k.mcpTokens.resolve(token);
    if (!agent) throw new RoostError('INVALID_API_KEY', 'this MCP token is unknown or expired');
    return agent;
  }
  return k.auth.identify(req, resource.url);
}

class JsonRpcFailure {
  constructor(
    readonly status: number,
    readonly rpcCode: number,
    readonly error: RoostError,
  ) {}

  send(res: ServerResponse): void {
    const body = JSON.stringify({ jsonrpc: '2.0', error: { code: this.rpcCode, message: this.error.message, data: { code: this.error.code } }, id: null });
    // A body cut off at the limit is left unread, so the connection cannot be reused.
    res.writeHead(this.status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...(this.status === 413 ? { connection: 'close' } : {}) });
    res.end(body);
  }
}

/** The first protocol version without JSON-RPC batches; older clients may still send them. */
const BATCHES_REMOVED_IN = '2025-06-18';
/** What a client that never says its version speaks (the MCP spec's default for a missing header). */
const UNSTATED_VERSION = '2025-03-26';

/** A batch from a client speaking 2025-06-18 or later (by its header, or the initialize it batches) is refused. */
function refuseBatch(req: IncomingMessage, body: unknown): JsonRpcFailure | undefined {
  if (!Array.isArray(body)) return undefined;
  const initialize = body.find((m) => m && typeof m === 'object' && (m as { method?: unknown }).method === 'initialize') as { params?: { protocolVersion?: unknown } } | undefined;
  const stated = typeof initialize?.params?.protocolVersion === 'string' ? initialize.params.protocolVersion : req.headers['mcp-protocol-version'];
  const version = typeof stated === 'string' && stated !== '' ? stated : UNSTATED_VERSION;
  if (version < BATCHES_REMOVED_IN) return undefined;
  return new JsonRpcFailure(400, INVALID_REQUEST, new RoostError('VALIDATION_ERROR', `JSON-RPC batches are not part of MCP ${version} (removed in ${BATCHES_REMOVED_IN}): send one message per request`));
}

/** Reads and parses the body: refused by its Content-Length, or as soon as it streams past the limit. */
function readJsonBody(req: IncomingMessage, limit: number): Promise<unknown> {
  const tooLarge = () => new JsonRpcFailure(413, SERVER_ERROR, new RoostError('PAYLOAD_TOO_LARGE', `the body is larger than ${limit} bytes`));
  return new Promise((resolve, reject) => {
    if (Number(req.headers['content-length'] ?? 0) > limit) return reject(tooLarge());
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      stop();
      req.pause();
      reject(tooLarge());
    };
    const onEnd = () => {
      stop();
      try {
        resolve(parse(Buffer.concat(chunks, size).toString('utf8')));
      } catch (err) {
        reject(err);
      }
    };
    const onError = (err: Error) => {
      stop();
      reject(err);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

function parse(text: string): unknown {
  const overLimit = scanJsonLimits(text, EDGE_JSON_LIMITS);
  if (overLimit) throw new JsonRpcFailure(400, INVALID_REQUEST, new RoostError('VALIDATION_ERROR', overLimit));
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new JsonRpcFailure(400, PARSE_ERROR, new RoostError('VALIDATION_ERROR', 'Parse error: the body is not valid JSON'));
  }
}
