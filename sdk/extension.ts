// The frame every server extension runs in: wait for init, open the storage the kernel provisioned,
// migrate, announce `ready`, then answer requests, tool calls, WebSocket messages and bus events.
import { writeSync } from 'node:fs';
import type { Knex } from 'knex';
import { diskFullLine, retryAfterOf, RoostError, toRoostError } from '../protocol/errors.js';
import {
  HEALTH_ROUTE, RawJson, SELFTEST_ROUTE, type AuthContext, type EventMessage, type InitMessage, type RequestMessage, type RouteReply, type ToolMessage, type ToolReply, type WsMessage,
} from '../protocol/messages.js';
import { environmentalFault, EXIT_CONFIG, EXIT_ENVIRONMENTAL } from '../protocol/faults.js';
import { decodeAttachment } from '../protocol/framing.js';
import { Peer, WithAttachment } from '../protocol/peer.js';
import type { SelftestCheck, SelftestRequest } from '../protocol/selftest.js';
import { migrate, openDatabase, type Migration } from '../lib/storage.js';
import { stderrLevel } from '../lib/stderr-level.js';
import { HostClient } from './host-client.js';
import { openReader, type SqlReader } from './sql.js';
import type { FrameTracing } from './tracing.js';

export interface ExtensionContext {
  init: InitMessage;
  /** The extension's own database, for writes and composed queries (throws when it was given no storage). */
  db: Knex;
  /** Hot reads on the same database: prepared statements reused across requests (see sql.ts). */
  sql: SqlReader;
  host: HostClient;
}

export interface RouteRequest {
  /** Pass as `{ requestId }` to host.call so a nested call runs as the same caller. */
  id: string;
  method: string;
  path: string;
  params: Record<string, string>;
  query: Record<string, string | string[]>;
  body: unknown;
  auth: AuthContext;
  /** Request headers, lower-cased: only on routes declared `raw` (for signature checks), else {}. */
  headers: Record<string, string>;
}

/**
 * A reply whose body is written as it is produced (server-sent events): the status and headers go at
 * once, then each `write` reaches the HTTP client; the body ends when `produce` returns. `signal` aborts
 * when the client has gone, and `produce` should then let go of what it holds (docs/protocol.md).
 */
export interface StreamedReply {
  status: number;
  headers?: Record<string, string>;
  produce(write: (chunk: string) => void, signal: AbortSignal): Promise<void>;
}

// Handlers get the extension's running state after ctx: what setup returned (see ExtensionDefinition).
export type RouteHandler<S = unknown> = (req: RouteRequest, ctx: ExtensionContext, state: S) => Promise<RouteReply | StreamedReply> | RouteReply | StreamedReply;
export type ToolHandler<S = unknown> = (args: Record<string, unknown>, caller: ToolMessage['caller'], ctx: ExtensionContext, state: S) => Promise<ToolReply> | ToolReply;
export type WsHandler<S = unknown> = (message: Record<string, unknown>, client: { id: string; auth: AuthContext }, ctx: ExtensionContext, state: S) => Promise<void> | void;
export type EventHandler<S = unknown> = (event: { topic: string; payload: unknown; tenantId: string | null }, ctx: ExtensionContext, state: S) => Promise<void> | void;

/**
 * One extension. Its running state (timers, pollers, caches for the life of the process) is what setup
 * returns: runExtension hands it to every handler after ctx, so no module keeps it in a variable of its
 * own. No handler runs before setup has returned.
 */
export interface ExtensionDefinition<S = void> {
  migrations?: Migration[];
  setup?(ctx: ExtensionContext): Promise<S> | S;
  /** Keyed exactly as the manifest declares them: "GET /api/projects/:id". */
  routes?: Record<string, RouteHandler<S>>;
  tools?: Record<string, ToolHandler<S>>;
  ws?: Record<string, WsHandler<S>>;
  event?: EventHandler<S>;
  /** With `self_checks = true` in plugin.toml: the end-to-end checks it runs when the self-test asks (SELFTEST_ROUTE). */
  selfChecks?(request: SelftestRequest, ctx: ExtensionContext): Promise<SelftestCheck[]>;
  shutdown?(ctx: ExtensionContext, state: S): Promise<void> | void;
}

export function runExtension<S = void>(definition: ExtensionDefinition<S>): void {
  const peer = new Peer(process.stdout, { onWarning: (w) => process.stderr.write(`protocol warning: ${JSON.stringify(w)}\n`) });
  const host = new HostClient(peer);
  let ctx: ExtensionContext | undefined;
  let state: S;
  let ready: Promise<ExtensionContext> | undefined;
  let database: Knex | undefined;
  let reader: SqlReader | undefined;

  peer.handle('init', (message) => {
    ready ??= start(message as unknown as InitMessage).then((c) => (ctx = c));
    // A setting it refuses (VALIDATION_ERROR while it sets up) is a configuration no restart heals.
    ready.catch((err) => exitFor('start-up failed', err, err instanceof RoostError && err.code === 'VALIDATION_ERROR' ? EXIT_CONFIG : 1));
  });
  // A lost database connection is met by the next query (and answered 503), never a reason to leave;
  // what still escapes is told apart: an environmental fault exits EXIT_ENVIRONMENTAL, so the host
  // starts this extension again for as long as the fault lasts, without counting a crash.
  process.on('uncaughtException', (err) => exitFor('uncaught exception', err));
  process.on('unhandledRejection', (err) => exitFor('unhandled rejection', err));

  async function start(init: InitMessage): Promise<ExtensionContext> {
    const db = init.storage ? openDatabase(init.storage) : undefined;
    const schemaVersion = db && definition.migrations ? await migrate(db, definition.migrations) : 0;
    const noStorage = () => new RoostError('INTERNAL', 'this extension was given no storage (capability "db")');
    reader = init.storage ? openReader(init.storage) : undefined;
    const context: ExtensionContext = {
      init,
      host,
      get db(): Knex {
        if (!db) throw noStorage();
        return db;
      },
      get sql(): SqlReader {
        if (!reader) throw noStorage();
        return reader;
      },
    };
    database = db;
    state = (await definition.setup?.(context)) as S;
    // attachments: request and reply bodies travel as raw bytes after their frame (protocol/framing.ts);
    // routes: the handlers' keys, which the kernel holds against the manifest's routes.
    peer.notify({ type: 'ready', schemaVersion, attachments: true, routes: Object.keys(definition.routes ?? {}) });
    return context;
  }

  // Tracing starts (sdk/tracing.ts is imported) with the first frame that carries a trace context.
  let tracing: Promise<FrameTracing> | undefined;
  const traced = async (raw: Record<string, unknown>, handler: (raw: Record<string, unknown>) => Promise<unknown>) => {
    if (raw.trace === undefined) return handler(raw);
    tracing ??= import('./tracing.js').then(({ startFrameTracing }) => (host.tracing = startFrameTracing((spans) => host.sendSpans(spans))));
    const { name, attributes } = spanOf(raw);
    return (await tracing).serve(raw.trace, name, attributes, () => handler(raw));
  };

  // Runs a handler as the serving of its message: audits made while it runs name that message's context.
  const serving = (handler: (raw: Record<string, unknown>) => Promise<unknown>) => (raw: Record<string, unknown>) => {
    const context = raw.type === 'ws' || raw.type === 'event' ? raw.context : raw.id;
    return typeof context === 'string' ? host.serving.run(context, traced, raw, handler) : traced(raw, handler);
  };

  const withContext = async (): Promise<ExtensionContext> => {
    if (ctx) return ctx;
    if (!ready) throw new RoostError('EXTENSION_UNAVAILABLE', 'the extension has not received init');
    return ready;
  };

  peer.handle('request', serving(async (raw) => {
    const m = raw as unknown as RequestMessage & { route: string; raw?: boolean; attachment?: Buffer };
    if (m.route === HEALTH_ROUTE) return withBody(await health(await withContext().catch(() => undefined), database, definition.migrations?.length ?? 0));
    const handler = m.route === SELFTEST_ROUTE && definition.selfChecks
      ? async (req: RouteRequest, c: ExtensionContext) => ({ status: 200, body: { checks: await definition.selfChecks!(req.body as SelftestRequest, c) } })
      : definition.routes?.[m.route];
    if (!handler) return withBody(errorReply(host, new RoostError('ROUTE_NOT_FOUND', `no handler for ${m.route}`)));
    try {
      const body = m.attachment === undefined ? m.body : decodeAttachment(m.attachment, m.raw ? 'text' : 'json');
      const reply = await handler({ id: m.id, method: m.method, path: m.path, params: m.params, query: m.query, body, auth: m.auth, headers: m.headers ?? {} }, await withContext(), state);
      return 'produce' in reply ? streamed(m.id, reply) : withBody(reply);
    } catch (err) {
      return withBody(errorReply(host, err));
    }
  }));

  // Streamed replies being produced, by request id: the kernel's `route_closed` aborts one.
  const producing = new Map<string, AbortController>();
  function streamed(requestId: string, reply: StreamedReply): RouteReply {
    const stop = new AbortController();
    producing.set(requestId, stop);
    // How many are open: roost_extension_queue_depth{queue="streamed_replies"} in /metrics.
    host.queueDepth('streamed_replies', producing.size);
    const write = (data: string) => {
      if (!stop.signal.aborted && data !== '') peer.notify({ type: 'route_chunk', request: requestId, data });
    };
    // Produced after the reply frame has gone (this runs once the handler's answer is sent).
    setImmediate(() => {
      reply.produce(write, stop.signal)
        .catch((err: unknown) => logUnexpected(host, err, toRoostError(err)))
        .finally(() => {
          producing.delete(requestId);
          host.queueDepth('streamed_replies', producing.size);
          peer.notify({ type: 'route_chunk', request: requestId, end: true });
        });
    });
    return { status: reply.status, ...(reply.headers ? { headers: reply.headers } : {}), stream: true };
  }
  peer.handle('route_closed', (message) => producing.get(String(message.request))?.abort());

  peer.handle('tool', serving(async (raw) => {
    const m = raw as unknown as ToolMessage;
    const handler = definition.tools?.[m.name];
    if (!handler) return { content: [{ type: 'text', text: `unknown tool ${m.name}` }], isError: true };
    try {
      return await handler(m.arguments, m.caller, await withContext(), state);
    } catch (err) {
      const error = toRoostError(err);
      logUnexpected(host, err, error);
      return { content: [{ type: 'text', text: error.message }], isError: true };
    }
  }));

  peer.handle('ws', serving(async (raw) => {
    const m = raw as unknown as WsMessage;
    const handler = definition.ws?.[String(m.message.type)];
    const client = { id: m.clientId, auth: m.auth };
    try {
      if (handler) await handler(m.message, client, await withContext(), state);
    } catch (err) {
      const error = toRoostError(err);
      logUnexpected(host, err, error);
      host.wsSend(m.clientId, { type: 'error', message: error.message, code: error.code });
    }
  }));

  peer.handle('event', serving(async (raw) => {
    const m = raw as unknown as EventMessage;
    if (definition.event) await definition.event({ topic: m.topic, payload: m.payload, tenantId: m.tenantId ?? null }, await withContext(), state);
  }));

  peer.handle('cancel', () => undefined);

  // What the extension writes to stderr while it serves a message (console.error, a library's warning)
  // goes to the host as a `log` naming that message, so the kernel's line carries the HTTP request id.
  // Outside any message, stderr stays the raw log the host forwards line by line.
  const writeStderr = process.stderr.write.bind(process.stderr) as (chunk: string | Uint8Array, ...rest: unknown[]) => boolean;
  process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    if (host.serving.getStore() === undefined) return writeStderr(chunk, ...rest);
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    for (const line of text.split('\n')) if (line.trim() !== '') host.log(stderrLevel(line), line);
    const done = rest.find((arg): arg is () => void => typeof arg === 'function');
    if (done) queueMicrotask(done);
    return true;
  }) as typeof process.stderr.write;

  // stdin ends when the host stops this extension, and also when the host died (even by kill -9):
  // leave promptly then, whatever is in flight, so no orphan keeps the database or runs on.
  process.stdin.on('end', async () => {
    const graceMs = 3_000;
    setTimeout(() => {
      process.stderr.write(`shutdown took over ${graceMs} ms; leaving\n`);
      process.exit(1);
    }, graceMs).unref();
    try {
      if (ctx) {
        await definition.shutdown?.(ctx, state);
        await reader?.close();
        // Fold the WAL into the database file, so the next start finds one clean file.
        if (database && database.client.config.client !== 'pg') await database.raw('PRAGMA wal_checkpoint(TRUNCATE)');
        await database?.destroy();
      }
      process.exit(0);
    } catch (err) {
      process.stderr.write(`shutdown failed: ${err instanceof Error ? err.stack : String(err)}\n`);
      process.exit(1);
    }
  });
  peer.attach(process.stdin);
}

/** The name and attributes of the span serving a traced message: its route or tool, and its tenant (never its body). */
function spanOf(raw: Record<string, unknown>): { name: string; attributes: Record<string, string> } {
  const tenant = raw.type === 'tool' ? (raw as unknown as ToolMessage).caller?.tenantId : (raw as unknown as RequestMessage).auth?.tenantId;
  const attributes: Record<string, string> = tenant ? { 'roost.tenant': tenant } : {};
  if (raw.type === 'tool') return { name: `serve tool ${String(raw.name)}`, attributes: { ...attributes, 'roost.tool': String(raw.name) } };
  return { name: `serve ${String(raw.route)}`, attributes: { ...attributes, 'roost.route': String(raw.route) } };
}

/**
 * Leaves for an error nothing else handled. The last line written says why (the host shows it as the
 * reason); an environmental fault exits EXIT_ENVIRONMENTAL, anything else with `code` (1, a crash, or
 * EXIT_CONFIG).
 */
function exitFor(what: string, err: unknown, code = 1): never {
  const message = (err instanceof Error ? err.message : String(err)).replace(/\s+/g, ' ').trim();
  // Written at once to fd 2 (the host's raw log), whatever message was being served: the stack, then
  // the one line the host takes as the reason (an error during start-up reaches the caller with it).
  if (err instanceof Error && err.stack) writeSync(2, `${err.stack}\n`);
  const fault = environmentalFault(err);
  if (!fault) {
    writeSync(2, `${what}: ${message}\n`);
    process.exit(code);
  }
  const why = fault === 'disk' ? 'the disk is full' : 'the database cannot be reached';
  writeSync(2, `environmental fault: ${why} (${message})\n`);
  process.exit(EXIT_ENVIRONMENTAL);
}

/**
 * The reply frame with its body serialised once, here, as the attachment: the kernel writes those bytes to
 * the HTTP response (or hands them to a calling extension) without parsing them. A string body is sent
 * as text, anything else as JSON.
 */
function withBody(reply: RouteReply): WithAttachment {
  const { status, headers, body } = reply;
  const text = typeof body === 'string';
  const attachment = body === undefined || body === null || status === 204 ? '' : text ? body : body instanceof RawJson ? body.text : JSON.stringify(body);
  return new WithAttachment({ status, ...(headers ? { headers } : {}), encoding: text ? 'text' : 'json' }, attachment);
}

/**
 * The answer to the self-test's health request: the store answers a query and holds every migration
 * this code knows (200), or not (503). Without storage there is nothing of its own to check.
 */
async function health(ctx: ExtensionContext | undefined, db: Knex | undefined, migrations: number): Promise<RouteReply> {
  if (!ctx) return { status: 503, body: { status: 'failing', error: 'the extension has not finished starting' } };
  if (!db) return { status: 200, body: { status: 'ok', store: null } };
  try {
    await db.raw('SELECT 1');
    const applied = migrations === 0 ? 0 : Number((await db('knex_migrations').count({ n: '*' }).first())?.n ?? 0);
    if (applied !== migrations) return { status: 503, body: { status: 'failing', error: `its schema holds ${applied} of the ${migrations} migrations this code knows` } };
    return { status: 200, body: { status: 'ok', store: { client: db.client.config.client === 'pg' ? 'pg' : 'sqlite3', migrations: applied } } };
  } catch (err) {
    return { status: 503, body: { status: 'failing', error: `its store does not answer: ${err instanceof Error ? err.message : String(err)}` } };
  }
}

function errorReply(host: HostClient, err: unknown): RouteReply {
  const error = toRoostError(err);
  logUnexpected(host, err, error);
  const retryAfter = retryAfterOf(error);
  const headers = retryAfter === undefined ? undefined : { 'Retry-After': String(retryAfter) };
  return { status: error.status, ...(headers ? { headers } : {}), body: error.toBody() };
}

function logUnexpected(host: HostClient, err: unknown, error: RoostError): void {
  if (error.code === 'INTERNAL') host.log('error', err instanceof Error ? (err.stack ?? err.message) : String(err));
  else if (error.code === 'STORAGE_FULL') host.log('warn', diskFullLine(err));
}
