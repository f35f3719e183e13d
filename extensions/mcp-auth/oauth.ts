// The wire of OAuth 2.1 as the MCP spec (2025-06-18, "Authorization") asks an authorization server to
// speak it: RFC 6749 §5.2 error answers (the MCP SDK's own error classes), form bodies, the metadata of
// RFC 8414 and RFC 9728, and the exact redirect-URI match of OAuth 2.1 with RFC 8252 §7.3's loopback
// rule (any port for a native client's loopback redirect).
import { OAuthError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { RouteReply } from '../../protocol/messages.js';
import type { RouteRequest } from '../../sdk/extension.js';

/** The MCP endpoint these tokens are for (the kernel's route), and the dashboard's consent page. */
export const MCP_PATH = '/mcp';
export const CONSENT_PAGE = '/ui/#/authorize';

/** RFC 7591 §3.2.2's invalid_redirect_uri, which the SDK's error classes lack. */
export class InvalidRedirectUriError extends OAuthError {
  static override errorCode = 'invalid_redirect_uri';
}

export const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' };

/** An RFC 6749 §5.2 answer (401 for a client that is not known, 400 otherwise). */
export function oauthError(error: OAuthError): RouteReply {
  return { status: error.errorCode === 'invalid_client' ? 401 : 400, headers: NO_STORE, body: error.toResponseObject() };
}

/** The server as the client reached it: the configured public URL, or the Host it sent. */
export function originOf(req: RouteRequest, publicUrl: unknown): string {
  return typeof publicUrl === 'string' && publicUrl !== '' ? publicUrl : `http://${req.headers.host ?? 'localhost'}`;
}

/** The form body OAuth endpoints take (RFC 6749 §3.2); JSON is taken too, as device login does. */
export function formOf(req: RouteRequest): Record<string, string> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  const text = typeof req.body === 'string' ? req.body : '';
  if (type === 'application/json') {
    try {
      const parsed: unknown = text === '' ? {} : JSON.parse(text);
      return Object.fromEntries(Object.entries(parsed as object).filter(([, v]) => typeof v === 'string')) as Record<string, string>;
    } catch {
      return {};
    }
  }
  return Object.fromEntries(new URLSearchParams(text));
}

/** One query parameter, given once (RFC 6749 §3.1: a parameter sent twice is an error). */
export function queryParam(req: RouteRequest, name: string): string | undefined {
  const value = req.query[name];
  if (Array.isArray(value)) throw new BadQuery(`${name} is given more than once`);
  return typeof value === 'string' && value !== '' ? value : undefined;
}

export class BadQuery extends Error {}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

function isLoopbackHttp(url: URL): boolean {
  return url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname);
}

/**
 * A redirect URI a client may register: https, a loopback http one (RFC 8252 §7.3), or a private-use
 * scheme in reverse-domain form (RFC 8252 §7.1); never with a fragment (RFC 6749 §3.1.2).
 */
export function registrableRedirect(uri: string): string | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return `${uri} is not a URL`;
  }
  if (url.hash !== '') return `${uri} has a fragment`;
  if (url.protocol === 'https:' || isLoopbackHttp(url)) return undefined;
  if (url.protocol === 'http:') return `${uri}: plain http is allowed only to a loopback address`;
  if (/^[a-z][a-z0-9+.-]*\.[a-z0-9+.-]+:$/.test(url.protocol) && !/^(javascript|data|file|vbscript):$/.test(url.protocol)) return undefined;
  return `${uri}: use https, a loopback http address or a reverse-domain private-use scheme`;
}

/** Whether `given` is one of the registered URIs exactly; a loopback one matches on any port (RFC 8252 §7.3). */
export function redirectMatches(registered: string[], given: string): boolean {
  if (registered.includes(given)) return true;
  let asked: URL;
  try {
    asked = new URL(given);
  } catch {
    return false;
  }
  if (!isLoopbackHttp(asked)) return false;
  return registered.some((uri) => {
    const known = new URL(uri);
    if (!isLoopbackHttp(known)) return false;
    known.port = asked.port;
    return known.href === asked.href;
  });
}

/** RFC 9728 metadata of /mcp: this server is its authorization server, bearer tokens in the header. */
export function protectedResourceMetadata(origin: string): Record<string, unknown> {
  return {
    resource: `${origin}${MCP_PATH}`,
    authorization_servers: [origin],
    bearer_methods_supported: ['header'],
    resource_name: 'Roost MCP',
  };
}

/** RFC 8414 metadata: code with PKCE (S256 only), refresh tokens, public clients registered dynamically. */
export function authorizationServerMetadata(origin: string): Record<string, unknown> {
  return {
    issuer: origin,
    authorization_endpoint: `${origin}/oauth/authorize`,
    token_endpoint: `${origin}/oauth/token`,
    registration_endpoint: `${origin}/oauth/register`,
    revocation_endpoint: `${origin}/oauth/revoke`,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none'],
    revocation_endpoint_auth_methods_supported: ['none'],
    authorization_response_iss_parameter_supported: true,
  };
}

/** The public JSON answer of a metadata document. */
export function json(body: unknown, headers: Record<string, string> = {}): RouteReply {
  return { status: 200, headers: { 'cache-control': 'public, max-age=300', ...headers }, body };
}
