// What a web page in a browser may do with this server. A loopback caller without a key is the
// owner, and a browser runs any page's code on the owner's machine, so:
// - Host must name this server (loopback names, the bind host, ROOST_ALLOWED_HOSTS): a page that
//   re-points its own DNS name at 127.0.0.1 (DNS rebinding) still sends its own name and is refused.
// - Origin, when a browser sends one, must be a bare serialized origin (scheme://host[:port], nothing
//   more) and this server's own (http, same host and port as Host; or ROOST_PUBLIC_URL's origin behind
//   a TLS proxy) or listed in ROOST_ALLOWED_ORIGINS; CORS answers only listed origins. Clients that are
//   not browsers send no Origin and pass.
// Every front (REST, /ws upgrades, /mcp) runs this before it identifies the caller, so the local-owner
// rule only ever sees requests that passed.
import type { IncomingMessage } from 'node:http';
import type Koa from 'koa';
import { RoostError } from '../../protocol/errors.js';
import type { ServerConfig } from '../config.js';
import type { Kernel } from '../kernel.js';

/** What this module uses of the kernel. */
export type BrowserGuardDeps = Pick<Kernel, 'audit' | 'config' | 'rateLimiter'>;

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];
const PREFLIGHT_MAX_AGE_SECONDS = 600;
const ALLOWED_METHODS = 'GET, POST, PUT, PATCH, DELETE, OPTIONS';
const ALLOWED_HEADERS = 'authorization, content-type, idempotency-key, mcp-protocol-version, mcp-session-id, last-event-id';
const EXPOSED_HEADERS = 'retry-after, www-authenticate, mcp-session-id, location, idempotent-replayed';

interface HostName {
  name: string;
  /** Undefined: any port. */
  port: string | undefined;
}

export interface BrowserPolicy {
  hosts: HostName[];
  /** Listed origins, serialized (lower-case, no default port). */
  origins: Set<string>;
  /** ROOST_PUBLIC_URL's origin: the server's own when a TLS proxy serves it as https. */
  publicOrigin: string | undefined;
  /** Host headers found allowed already: every request of a client sends the same one, and parsing it costs more than the lookup. */
  allowedHostHeaders: Set<string>;
}

/** Host headers remembered as allowed at most (a client sending many names only costs the parse again). */
const MAX_REMEMBERED_HOSTS = 64;

export function browserPolicy(config: Pick<ServerConfig, 'host' | 'allowedHosts' | 'allowedOrigins' | 'publicUrl'>): BrowserPolicy {
  const bindHost = config.host.includes(':') && !config.host.startsWith('[') ? `[${config.host}]` : config.host;
  const names = [...LOOPBACK_NAMES, bindHost.toLowerCase(), ...config.allowedHosts];
  const origins = config.allowedOrigins.map(normalisedOrigin).filter((o): o is string => o !== undefined);
  return {
    hosts: names.map(splitHost).filter((h): h is HostName => h !== undefined),
    origins: new Set(origins),
    publicOrigin: config.publicUrl === undefined ? undefined : normalisedOrigin(config.publicUrl),
    allowedHostHeaders: new Set(),
  };
}

/** A configured origin or URL as browsers serialize its origin; undefined when it is not http(s). */
function normalisedOrigin(value: string): string | undefined {
  try {
    const url = new URL(value);
    return /^https?:$/.test(url.protocol) ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The Origin header when it is exactly what a browser sends for an http(s) page: its own serialization
 * (so no path, query, userinfo, upper case, default port or trailing junk). `null` is never one.
 */
function serializedOrigin(value: string): URL | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  return /^https?:$/.test(url.protocol) && url.origin === value ? url : undefined;
}

/** `name`, `name:port`, `[v6]` or `[v6]:port`, lower-cased; undefined when it is none of these. */
function splitHost(value: string): HostName | undefined {
  const match = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(value.trim().toLowerCase());
  return match ? { name: match[1]!, port: match[2] } : undefined;
}

export function hostAllowed(policy: BrowserPolicy, host: string | undefined): boolean {
  // Browsers always send Host; only an old HTTP/1.0 client leaves it out, and it is no browser.
  if (host === undefined || policy.allowedHostHeaders.has(host)) return true;
  const given = splitHost(host);
  const allowed = given !== undefined && policy.hosts.some((h) => h.name === given.name && (h.port === undefined || h.port === given.port));
  if (allowed && policy.allowedHostHeaders.size < MAX_REMEMBERED_HOSTS) policy.allowedHostHeaders.add(host);
  return allowed;
}

/**
 * Same origin: the page was served by this very server, which speaks plain http, on the host and port
 * of the Host header (already checked). An https page reached it through a proxy: ROOST_PUBLIC_URL.
 */
function sameOrigin(url: URL, host: string | undefined): boolean {
  const given = host === undefined ? undefined : splitHost(host);
  return url.protocol === 'http:' && given !== undefined && url.hostname === given.name && (url.port || '80') === (given.port ?? '80');
}

export function originAllowed(policy: BrowserPolicy, origin: string | undefined, host: string | undefined): boolean {
  if (origin === undefined) return true;
  const url = serializedOrigin(origin);
  if (!url) return false;
  return policy.origins.has(origin) || origin === policy.publicOrigin || sameOrigin(url, host);
}

/** The refusal for a request whose Host or Origin is foreign, or undefined when it may go on. */
export function browserRefusal(policy: BrowserPolicy, req: IncomingMessage): RoostError | undefined {
  const { host, origin } = req.headers;
  if (!hostAllowed(policy, host)) {
    return new RoostError('FORBIDDEN_ORIGIN', `this server does not answer to the host name "${clip(host)}"; add it to ROOST_ALLOWED_HOSTS`);
  }
  if (!originAllowed(policy, origin, host)) {
    return new RoostError('FORBIDDEN_ORIGIN', `requests from the web origin "${clip(origin)}" are not allowed; add it to ROOST_ALLOWED_ORIGINS to allow it`);
  }
  return undefined;
}

/** CORS headers for a response to a listed origin (none for anyone else). */
export function corsHeaders(policy: BrowserPolicy, req: IncomingMessage): Record<string, string> {
  const origin = req.headers.origin;
  if (origin === undefined || !policy.origins.has(origin)) return {};
  return { 'access-control-allow-origin': origin, 'access-control-expose-headers': EXPOSED_HEADERS, vary: 'Origin' };
}

/** A CORS preflight from a listed origin, answered with what it may send. */
export function preflightHeaders(policy: BrowserPolicy, req: IncomingMessage): Record<string, string> | undefined {
  if (req.method !== 'OPTIONS' || req.headers['access-control-request-method'] === undefined) return undefined;
  const cors = corsHeaders(policy, req);
  if (!cors['access-control-allow-origin']) return undefined;
  return {
    ...cors,
    'access-control-allow-methods': ALLOWED_METHODS,
    'access-control-allow-headers': ALLOWED_HEADERS,
    'access-control-max-age': String(PREFLIGHT_MAX_AGE_SECONDS),
  };
}

/**
 * Records a refusal like other authentication failures. It costs the address a token first, so a
 * page that keeps trying is rate limited (429, not recorded) rather than filling the audit log.
 */
export async function recordRefusal(kernel: BrowserGuardDeps, req: IncomingMessage, resource: string, error: RoostError): Promise<void> {
  const address = req.socket.remoteAddress ?? 'unknown';
  await kernel.rateLimiter.take(`ip:${address}`);
  const detail = { code: error.code, host: clip(req.headers.host), origin: clip(req.headers.origin) };
  kernel.audit.append({ tenantId: null, actor: address, action: 'auth.failure', resource, detail });
}

function clip(value: string | undefined): string {
  return (value ?? '').slice(0, 200);
}

/** The REST front's guard; runs right after the error middleware, before authentication. */
export function browserGuard(kernel: BrowserGuardDeps): Koa.Middleware {
  const policy = browserPolicy(kernel.config);
  return async (ctx, next) => {
    const refusal = browserRefusal(policy, ctx.req);
    if (refusal) {
      await recordRefusal(kernel, ctx.req, `${ctx.request.method} ${ctx.request.path}`, refusal);
      throw refusal;
    }
    const preflight = preflightHeaders(policy, ctx.req);
    if (preflight) {
      ctx.response.set(preflight);
      ctx.response.status = 204;
      return;
    }
    // Set, not merged (ctx.vary parses the header first): nothing before this guard sets Vary.
    ctx.response.set('Vary', 'Origin');
    const cors = corsHeaders(policy, ctx.req);
    if (cors['access-control-allow-origin']) ctx.response.set(cors);
    await next();
  };
}
