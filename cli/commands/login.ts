// `roost login [--server URL]`: signs this machine in to a Roost server with the device flow (RFC 8628)
// and keeps the key it is given in $ROOST_HOME/config.toml (mode 0600).
import { usageError, type CommandResult } from '../output.js';
import type { CliContext } from '../context.js';
import { saveLogin, savedServer } from '../login/credentials.js';
import { pollForToken, requestCodes } from '../login/device-flow.js';
import type { CommandInput } from '../tree.js';

const DEFAULT_SERVER = 'http://127.0.0.1:3000';

function serverUrl(given: string): string {
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    throw usageError(`--server must be a URL such as https://roost.example.com, not "${given}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw usageError('--server must be an http:// or https:// URL');
  return url.origin;
}

/** "tenant:<id> role:<role>" → { tenant_id, role } */
function scopeOf(scope: string | undefined): { tenant_id?: string; role?: string } {
  const parts = Object.fromEntries((scope ?? '').split(' ').map((p) => p.split(':', 2)).filter((p) => p.length === 2));
  return { ...(parts.tenant ? { tenant_id: parts.tenant } : {}), ...(parts.role ? { role: parts.role } : {}) };
}

export async function handler(input: CommandInput, ctx: CliContext): Promise<CommandResult> {
  const given = typeof input.options.server === 'string' ? input.options.server : process.env.ROOST_SERVER || (await savedServer()).url || DEFAULT_SERVER;
  const server = serverUrl(given);
  const codes = await requestCodes(server);
  const where = codes.verification_uri_complete ?? codes.verification_uri;
  ctx.log(`To sign in, open ${where}\nand check that it shows the code ${codes.user_code}, then approve it. Waiting…`);
  const token = await pollForToken(server, codes);
  const scope = scopeOf(token.scope);
  const path = await saveLogin({ url: server, api_key: token.access_token, ...scope });
  const who = scope.role && scope.tenant_id ? ` as ${scope.role} of tenant ${scope.tenant_id}` : '';
  return {
    data: { server, config: path, ...scope, expiresIn: token.expires_in ?? null },
    text: `Signed in to ${server}${who}. The key is kept in ${path}.`,
  };
}
