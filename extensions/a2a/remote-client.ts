// Talking to other servers: connections to registered remotes (their key opened, within the tenant's
// reach) and fetching agent cards. Running a task on a remote is rpc-client.ts.
import { RoostError } from '../../protocol/errors.js';
import type { ExtensionContext } from '../../sdk/extension.js';
import { checkCard, type AgentCard } from './card.js';
import { parseHttpUrl, request, type OutboundReply, type Reach } from '../../sdk/outbound.js';
import { portOf, reachFor, reachPolicy } from '../../sdk/reach.js';
import { RemoteStore, type Remote } from './remotes.js';
import { Sealer } from '../../sdk/sealed.js';

const CARD_MAX_BYTES = 256 * 1024;
export const REQUEST_TIMEOUT_MS = 10_000;
export const WELL_KNOWN_CARD = '/.well-known/agent-card.json';

/** A remote with its key opened, ready for requests; or, for a URL under no remote, none (`remote` null). */
export interface Connection {
  remote: Remote | null;
  base: string;
  headers: Record<string, string>;
  /** Where requests for this tenant may go, registered remote or not (sdk/reach.ts). */
  reachOf: (url: URL) => Reach;
}

export async function connect(ctx: ExtensionContext, tenantId: string, remote: Remote | null, base = remote?.url ?? ''): Promise<Connection> {
  const key = remote?.hasApiKey ? await new RemoteStore(ctx.db).apiKey(tenantId, remote.id, await Sealer.forExtension(ctx.host)) : null;
  const policy = reachPolicy(ctx);
  return { remote, base, headers: key ? { authorization: `Bearer ${key}` } : {}, reachOf: (url) => reachFor(policy, tenantId, portOf(url)) };
}

export async function getJson(connection: Connection, url: URL, maxBytes = CARD_MAX_BYTES): Promise<OutboundReply> {
  return request({ method: 'GET', url, headers: connection.headers, timeoutMs: REQUEST_TIMEOUT_MS, maxBytes, reach: connection.reachOf(url) });
}

/** svc_discover_agent: the card at a URL (a server's base URL means its well-known card). */
export async function discoverCard(ctx: ExtensionContext, tenantId: string, raw: string): Promise<{ url: string; remote: Remote | null; card: AgentCard }> {
  const given = parseHttpUrl(raw);
  const url = given.pathname === '/' || given.pathname === '' ? new URL(WELL_KNOWN_CARD, given.origin) : given;
  const remote = (await new RemoteStore(ctx.db).matching(tenantId, url)) ?? null;
  const reply = await getJson(await connect(ctx, tenantId, remote, url.origin), url);
  if (reply.status !== 200) throw new RoostError('UPSTREAM_ERROR', `${url.href} answered ${reply.status}${describe(reply.body)}`, { status: 502 });
  return { url: url.href, remote, card: checkCard(reply.body, url.href) };
}

/** An error answer's own sentence, when it has one. */
export function describe(body: unknown): string {
  const error = body && typeof body === 'object' ? (body as { error?: unknown }).error : undefined;
  return typeof error === 'string' ? `: ${error.slice(0, 500)}` : '';
}
