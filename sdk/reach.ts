// The one rule for where a request made on a tenant's behalf may go, in every extension: the pages an
// agent's browser loads, the external MCP servers, A2A remotes, federation instances and attestation
// issuers a tenant names, its notification and code-host webhooks, its Telegram API root, an agent's
// Discord image URL. A loopback caller without a key is the instance owner (kernel/auth/identity.ts), so
// nothing a tenant or an agent names may reach this machine's loopback by default — above all not the
// server's own port. Another tenant reaches public addresses only. The instance's own tenant reaches
// private addresses too, and loopback when the instance owner opted in with the extension's setting
// ROOST_EXT_<NAME>_ALLOW_LOOPBACK=1 — never the server's own port, whatever the setting. A closed network
// (and a test) may give every tenant the instance's own tenant's reach with
// ROOST_EXT_<NAME>_ALLOW_PRIVATE_URLS=1. Checked when a URL is registered (checkTarget) and as each
// connection is made (reachFor, with outbound.ts's lookup hook).
import { RoostError, validationError } from '../protocol/errors.js';
import type { ExtensionContext } from './extension.js';
import { checkReach, parseHttpUrl, type Reach } from './outbound.js';
import { INSTANCE_TENANT } from './roles.js';
import { stringSetting } from './settings.js';

export interface ReachPolicy {
  /** The setting's prefix, ROOST_EXT_<NAME>_, for messages. */
  prefix: string;
  allowLoopback: boolean;
  /** Every tenant gets the instance's own tenant's reach (a closed network). */
  allowPrivate: boolean;
  /** The port this server listens on (from init's serverUrl). */
  serverPort: number | null;
}

export function reachPolicy(ctx: ExtensionContext): ReachPolicy {
  const prefix = `ROOST_EXT_${ctx.init.plugin.name.toUpperCase().replace(/-/g, '_')}_`;
  const flag = (name: string) => {
    const setting = stringSetting(ctx, name) ?? '0';
    if (setting !== '0' && setting !== '1') throw validationError(`${prefix}${name} must be 0 or 1, not ${JSON.stringify(setting)}`);
    return setting === '1';
  };
  const serverUrl = ctx.init.config?.serverUrl;
  return { prefix, allowLoopback: flag('ALLOW_LOOPBACK'), allowPrivate: flag('ALLOW_PRIVATE_URLS'), serverPort: typeof serverUrl === 'string' ? portOf(new URL(serverUrl)) : null };
}

/**
 * The reach of a request for `tenantId` to `port`. `publicOnly`: an extension narrows a target to public
 * addresses unless ALLOW_PRIVATE_URLS=1 (notifications, for a webhook an agent set for itself).
 */
export function reachFor(policy: ReachPolicy, tenantId: string, port: number, publicOnly = false): Reach {
  if ((publicOnly || tenantId !== INSTANCE_TENANT) && !policy.allowPrivate) return 'public';
  return policy.allowLoopback && port !== policy.serverPort ? 'no-metadata' : 'no-loopback';
}

/** The reach of a request for `tenantId` to `url`. */
export const reachOfUrl = (policy: ReachPolicy, tenantId: string, url: URL, publicOnly = false): Reach => reachFor(policy, tenantId, portOf(url), publicOnly);

/**
 * A URL a tenant registers (`what` names the field): http(s), and refused (403 FORBIDDEN, saying which
 * setting would allow it, if any) when its host is, or resolves to, an address outside the tenant's reach.
 */
export async function checkTarget(policy: ReachPolicy, tenantId: string, raw: string, what: string, publicOnly = false): Promise<URL> {
  const url = parseHttpUrl(raw, what);
  const reach = reachOfUrl(policy, tenantId, url, publicOnly);
  try {
    await checkReach(url, reach);
  } catch (err) {
    if (err instanceof RoostError && err.code === 'FORBIDDEN') throw new RoostError('FORBIDDEN', `${what}: ${err.message}${hint(policy, url, reach, err.message)}`);
    throw err;
  }
  return url;
}

/** Which setting would allow what was refused, if any. */
function hint(policy: ReachPolicy, url: URL, reach: Reach, refusal: string): string {
  if (reach === 'public') return ` (${policy.prefix}ALLOW_PRIVATE_URLS=1 gives every tenant the instance's own tenant's reach)`;
  if (reach !== 'no-loopback' || !refusal.includes('this machine')) return '';
  if (portOf(url) === policy.serverPort) return '; the server\'s own port is never reached';
  return ` (${policy.prefix}ALLOW_LOOPBACK=1 lets the instance's own tenant reach loopback addresses other than the server's own port)`;
}

export const portOf = (url: URL): number => Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
