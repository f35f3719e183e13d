// An extension's route handler served inside the kernel process, through the kernel's embedding hook
// (startServer's second argument). The handler gets an ExtensionContext built as the extension frame
// (sdk/extension.ts) builds it: the same init, a knex and a prepared-statement reader opened on
// the very database the kernel provisioned for the extension, and a HostClient whose messages reach the kernel's bus.
import { PassThrough } from 'node:stream';
import type { ExtensionContext, RouteHandler } from '../../../sdk/extension.js';
import type { EmbeddedRoute } from '../../../kernel/http/dispatch.js';
import type { RunningServer } from '../../../kernel/server.js';
import type { RequestMessage } from '../../../protocol/messages.js';
import { HostClient, openDatabase, openReader, Peer, storageFor } from './dist.js';

export interface InKernelContext {
  ctx: ExtensionContext;
  close(): Promise<void>;
}

/** The GET route at `path`, answered in the kernel by `handler` with the context `context()` returns. */
export function embeddedRoute(path: string, handler: RouteHandler, context: () => ExtensionContext): EmbeddedRoute {
  return {
    method: 'GET',
    path,
    handler: (m: RequestMessage) => handler({ id: m.id, method: m.method, path: m.path, params: m.params, query: m.query, body: m.body, auth: m.auth }, context()),
  };
}

/** The context extension `name` (in `dir`) would get; with storage when it holds the `db` grant. */
export async function inKernelContext(server: RunningServer, name: string, dir: string, withStorage: boolean): Promise<InKernelContext> {
  const { kernel } = server;
  const storage = withStorage ? await storageFor(kernel.config, kernel.db, name) : undefined;
  const toHost = new PassThrough();
  const toHandler = new PassThrough();
  // The kernel's end of the in-process conversation serves `emit`, the host service handlers use here.
  new Peer(toHandler)
    .handle('emit', (m) => kernel.bus.publish({ topic: String(m.topic), payload: m.payload, tenantId: (m.tenantId as string | null) ?? null, source: name }))
    .attach(toHost);
  const db = storage ? openDatabase(storage) : undefined;
  const sql = storage ? openReader(storage) : undefined;
  const ctx: ExtensionContext = {
    init: {
      type: 'init',
      protocol: 'cli-v1',
      args: [],
      project: null,
      plugin: { name, version: kernel.version, dir },
      host: { name: 'roost-server', version: kernel.version },
      capabilities: withStorage ? { db: true, events: true } : {},
      ...(storage ? { storage } : {}),
      config: { serverUrl: server.url, allowedRoots: kernel.config.allowedRoots, dataDir: kernel.config.dataDir },
    },
    get db() {
      if (!db) throw new Error(`${name} was given no storage`);
      return db;
    },
    get sql() {
      if (!sql) throw new Error(`${name} was given no storage`);
      return sql;
    },
    host: new HostClient(new Peer(toHost).attach(toHandler)),
  };
  return { ctx, close: async () => void (await Promise.all([sql?.close(), db?.destroy()])) };
}
