// A route may take a machine key besides API keys (`machine_key` in plugin.toml: the environment
// variable that holds it), so a machine such as a Prometheus scraper reads it without an API key. The
// key is compared in constant time; a match is the identity `machine-key:<NAME>` of no tenant, and
// the extension serving the route decides what that may read. It reads only: a viewer's. A method
// nothing serves at that path still gets its 405, and no kernel route shares such a path (route-table.ts).
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { bearerToken, isLoopback, type Identity } from '../auth/identity.js';
import type { RouteMatch, RouteTable } from './route-table.js';

/** The machine identity of a request to `route` (or, for a method nothing serves, to `path`), when its bearer is that route's machine key. */
export function machineIdentity(routes: RouteTable, route: RouteMatch | undefined, path: string, req: IncomingMessage): Identity | undefined {
  const given = bearerToken(req);
  const name = !given ? undefined : route ? route.decl.machineKey : routes.machineKeyFor(path);
  const expected = name ? process.env[name] : undefined;
  if (!given || !name || !expected || !sameSecret(given, expected)) return undefined;
  return { tenantId: '', role: 'viewer', actor: `${MACHINE_ACTOR}${name}`, keyHash: null, local: isLoopback(req.socket.remoteAddress) };
}

const MACHINE_ACTOR = 'machine-key:';

export const isMachine = (identity: Identity): boolean => identity.actor.startsWith(MACHINE_ACTOR);

/** Equal in constant time whatever the lengths (hashes first: timingSafeEqual wants equal lengths). */
function sameSecret(given: string, expected: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(given), digest(expected));
}
