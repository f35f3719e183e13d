// What the routes share for the life of the extension process: the store (with its key) and the pool.
import type { ExtensionContext } from '../../sdk/extension.js';
import { reachFor, reachPolicy, type ReachPolicy } from '../../sdk/reach.js';
import { Sealer } from '../../sdk/sealed.js';
import { guardedFetch } from './guarded-fetch.js';
import { ConnectionPool } from './pool.js';
import { ServerStore } from './store.js';

/** How long to wait for a server to start and list its tools, and for a tool call (calls may do real work). */
export const CONNECT_TIMEOUT_MS = 20_000;
export const CALL_TIMEOUT_MS = 5 * 60_000;
/** A connection nobody used for this long is closed (a stdio server's process ends with it). */
export const IDLE_MS = 5 * 60_000;

export interface State {
  store: ServerStore;
  pool: ConnectionPool;
  /** Where an HTTP config of a tenant may point (sdk/reach.ts). */
  reach: ReachPolicy;
}

export async function openState(ctx: ExtensionContext): Promise<State> {
  const box = await Sealer.forExtension(ctx.host);
  const reach = reachPolicy(ctx);
  const store = new ServerStore(ctx.db, box);
  // Rows from before the args and URL were sealed; on SQLite the file is rewritten so their plaintext goes.
  if ((await store.sealLegacyTargets()) > 0 && ctx.db.client.config.client !== 'pg') await ctx.db.raw('VACUUM');
  const pool = new ConnectionPool({
    connectMs: CONNECT_TIMEOUT_MS,
    callMs: CALL_TIMEOUT_MS,
    idleMs: IDLE_MS,
    fetchFor: (config) => guardedFetch((port) => reachFor(reach, config.tenantId, port)),
  });
  return { store, pool, reach };
}

export async function closeState(_ctx: ExtensionContext, state: State): Promise<void> {
  await state.pool.closeAll();
}
