// Where a request made on a tenant's behalf may go: the pages an agent's browser loads, the external MCP
// servers a tenant configured, the A2A cards and remote servers it names. A loopback caller without a key
// is the instance owner (kernel/auth/identity.ts), so nothing a tenant or an agent names may reach this
// machine's loopback by default — above all not the server's own port. Another tenant reaches public
// addresses only. The instance's own tenant reaches private addresses too, and loopback when the instance
// owner opted in with the extension's setting ROOST_EXT_<NAME>_ALLOW_LOOPBACK=1 — never the server's own
// port, whatever the setting.
import { validationError } from '../../protocol/errors.js';
import type { ExtensionContext } from './extension.js';
import type { Reach } from './outbound.js';
import { INSTANCE_TENANT } from './roles.js';
import { stringSetting } from './settings.js';

export interface ReachPolicy {
  allowLoopback: boolean;
  /** The port this server listens on (from init's serverUrl). */
  serverPort: number | null;
}

export function reachPolicy(ctx: ExtensionContext): ReachPolicy {
  const setting = stringSetting(ctx, 'ALLOW_LOOPBACK') ?? '0';
  if (setting !== '0' && setting !== '1') throw validationError(`ALLOW_LOOPBACK of the ${ctx.init.plugin.name} extension must be 0 or 1, not ${JSON.stringify(setting)}`);
  const serverUrl = ctx.init.config?.serverUrl;
  return { allowLoopback: setting === '1', serverPort: typeof serverUrl === 'string' ? portOf(new URL(serverUrl)) : null };
}

/** The reach of a request for `tenantId` to `port`. */
export function reachFor(policy: ReachPolicy, tenantId: string, port: number): Reach {
  if (tenantId !== INSTANCE_TENANT) return 'public';
  return policy.allowLoopback && port !== policy.serverPort ? 'no-metadata' : 'no-loopback';
}

export const portOf = (url: URL): number => Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
