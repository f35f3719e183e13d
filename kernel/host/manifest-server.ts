// The [server] table of a plugin.toml: an extension's routes and what the kernel keeps of each (its
// OpenAPI entry, cache, empty answer, tenant hook), its tools, dependencies and subscriptions.
import { join } from 'node:path';
import { RoostError } from '../../protocol/errors.js';
import { readSchemaFile, type FileCache } from './schema-files.js';
import type { EventFilter } from './event-filter.js';
import type { HttpMethod, Manifest, RouteDecl, StreamDecl, TenantHooks, ToolDecl } from './manifest.js';

export const DEFAULT_EXTENSION_TIMEOUT_MS = 30_000;

export interface RawServer {
  main: string;
  activation?: 'eager' | 'lazy' | 'deferred';
  requires?: string[];
  uses?: string[];
  timeout_ms?: number;
  start_timeout_ms?: number;
  disk_mb?: number;
  secrets?: string[];
  settings?: Record<string, string>;
  self_checks?: boolean;
  listen?: Array<string | { env: string; default?: number }>;
  tenant_hooks?: TenantHooks;
  routes?: Array<string | RawRoute>;
  ws?: string[];
  subscribe?: string[];
  subscribe_when?: Record<string, EventFilter>;
  cache?: { routes: string[]; invalidated_by: string[] };
  broadcast?: string[];
  empty_answers?: Record<string, Record<string, unknown>>;
  tools?: Array<{ name: string; description: string; input?: string; privileged?: boolean }>;
  streams?: StreamDecl[];
  openapi?: Record<string, { summary?: string; query?: string; request?: string; response?: string; status?: number; content_type?: string; errors?: Record<string, { description: string; schema: string }> }>;
}

/** An extension neither depends on itself nor names one extension as both a requirement and an optional use. */
function checkDependencies(name: string, requires: string[], uses: string[]): void {
  if (requires.includes(name) || uses.includes(name)) throw new RoostError('VALIDATION_ERROR', `plugin ${name} names itself in [server] requires or uses`);
  const both = requires.filter((r) => uses.includes(r));
  if (both.length > 0) throw new RoostError('VALIDATION_ERROR', `plugin ${name} names ${both.join(', ')} in both [server] requires and uses: a requirement is used anyway`);
}

/** A filter narrows a pattern the extension subscribes to (not `broadcast`: every instance's copy must hold that state). */
function checkSubscribeWhen(name: string, subscribe: string[], when: Record<string, EventFilter>): void {
  const stray = Object.keys(when).find((pattern) => !subscribe.includes(pattern));
  if (stray) throw new RoostError('VALIDATION_ERROR', `plugin ${name} filters "${stray}" in [server.subscribe_when], a pattern it does not subscribe to`);
}

/** A tenant hook is one of the extension's own routes: the kernel asks it and nobody else. */
function ownHooks(hooks: TenantHooks, routes: RouteDecl[]): TenantHooks {
  for (const [hook, route] of Object.entries(hooks)) {
    if (!routes.some((r) => `${r.method} ${r.path}` === route)) throw new RoostError('VALIDATION_ERROR', `[server.tenant_hooks] ${hook} = "${route}" is not one of its [server] routes`);
  }
  return hooks;
}

/**
 * Gives the routes [server.empty_answers] names the body they answer while the extension has stored
 * nothing; each must be one of its internal GET routes (what another extension asks, never a client).
 */
function withEmptyAnswers(answers: Record<string, Record<string, unknown>>, routes: RouteDecl[], stores: boolean): void {
  // "Stored nothing" is told by its database: without one it would be said forever.
  if (Object.keys(answers).length > 0 && !stores) throw new RoostError('VALIDATION_ERROR', '[server.empty_answers] needs the db capability');
  for (const [key, body] of Object.entries(answers)) {
    const route = routes.find((r) => `${r.method} ${r.path}` === key);
    if (!route?.internal || route.method !== 'GET') throw new RoostError('VALIDATION_ERROR', `[server.empty_answers] names "${key}", which is not among its internal GET routes`);
    route.emptyAnswer = body;
  }
}

/** Marks the routes [server.cache] names as cached; each must be one of its GET routes. */
function cachedRoutes(named: string[], routes: RouteDecl[]): string[] {
  for (const key of named) {
    const route = routes.find((r) => `${r.method} ${r.path}` === key);
    if (!route) throw new RoostError('VALIDATION_ERROR', `[server.cache] names "${key}", which is not among [server] routes`);
    route.cached = true;
  }
  return named;
}

/** The [server] table of plugin `name`, checked and normalised; the schema files it names are read (and cached in `files`) relative to `dir`. */
export function normaliseServer(name: string, server: RawServer, dir: string, stores: boolean, files: FileCache): Manifest['server'] {
  checkDependencies(name, server.requires ?? [], server.uses ?? []);
  checkSubscribeWhen(name, server.subscribe ?? [], server.subscribe_when ?? {});
  const tools = (server.tools ?? []).map((tool): ToolDecl => ({
    name: tool.name,
    description: tool.description,
    inputSchema: tool.input ? readSchemaFile(join(dir, tool.input), dir, 'tool input schema', files) : { type: 'object', properties: {} },
    privileged: tool.privileged ?? false,
  }));
  const routes = documented((server.routes ?? []).map(normaliseRoute), server.openapi ?? {}, dir, files);
  withEmptyAnswers(server.empty_answers ?? {}, routes, stores);
  return {
    main: server.main,
    activation: server.activation ?? 'lazy',
    requires: [...(server.requires ?? [])].sort(),
    uses: [...(server.uses ?? [])].sort(),
    timeoutMs: server.timeout_ms ?? DEFAULT_EXTENSION_TIMEOUT_MS,
    startTimeoutMs: server.start_timeout_ms,
    diskMb: server.disk_mb,
    secrets: server.secrets ?? [],
    namedSettings: server.settings ?? {},
    selfChecks: server.self_checks ?? false,
    listen: (server.listen ?? []).map((l) => (typeof l === 'string' ? { variable: l } : { variable: l.env, ...(l.default !== undefined ? { defaultPort: l.default } : {}) })),
    tenantHooks: ownHooks(server.tenant_hooks ?? {}, routes),
    ...(server.cache ? { cache: { routes: cachedRoutes(server.cache.routes, routes), invalidatedBy: server.cache.invalidated_by } } : {}),
    routes,
    ws: server.ws ?? [],
    subscribe: server.subscribe ?? [],
    subscribeWhen: Object.fromEntries(Object.entries(server.subscribe_when ?? {}).map(([pattern, filter]) => [pattern, Object.fromEntries(Object.entries(filter).map(([field, values]) => [field, [...values]]))])),
    broadcast: server.broadcast ?? [],
    tools,
    streams: server.streams ?? [],
  };
}

type RawRoute = { method: HttpMethod; path: string; public?: boolean; raw?: boolean; internal?: boolean; writable_when_read_only?: boolean; machine_key?: string };

function normaliseRoute(route: string | RawRoute): RouteDecl {
  if (typeof route !== 'string') {
    const decl: RouteDecl = { method: route.method, path: route.path, public: route.public ?? false, raw: route.raw ?? false, internal: route.internal ?? false };
    return { ...decl, ...(route.writable_when_read_only ? { writableWhenReadOnly: true } : {}), ...(route.machine_key ? { machineKey: route.machine_key } : {}) };
  }
  const [method, path] = route.split(' ') as [HttpMethod, string];
  return { method, path, public: false, raw: false, internal: false };
}

/** Attaches each [server.openapi] entry to the route it names; an entry for no declared route is an error. */
function documented(routes: RouteDecl[], docs: NonNullable<RawServer['openapi']>, dir: string, files: FileCache): RouteDecl[] {
  for (const [key, doc] of Object.entries(docs)) {
    const route = routes.find((r) => `${r.method} ${r.path}` === key);
    if (!route) throw new RoostError('VALIDATION_ERROR', `[server.openapi] names "${key}", which is not among [server] routes`);
    const schema = (file: string | undefined, what: string) => (file ? readSchemaFile(join(dir, file), dir, `${what} schema of ${key}`, files) : undefined);
    if (doc.content_type && doc.response) throw new RoostError('VALIDATION_ERROR', `[server.openapi] "${key}": a route answers either a JSON body (response) or another content_type, not both`);
    const [query, request, response] = [schema(doc.query, 'query'), schema(doc.request, 'request'), schema(doc.response, 'response')];
    const errors = Object.entries(doc.errors ?? {}).map(([status, e]) => [status, { description: e.description, schema: schema(e.schema, `${status} error`)! }] as const);
    route.doc = {
      ...(doc.summary ? { summary: doc.summary } : {}),
      ...(query ? { query } : {}),
      ...(request ? { request } : {}),
      ...(response ? { response } : {}),
      ...(doc.status ? { status: doc.status } : {}),
      ...(doc.content_type ? { contentType: doc.content_type } : {}),
      ...(errors.length > 0 ? { responses: Object.fromEntries(errors) } : {}),
    };
  }
  return routes;
}
