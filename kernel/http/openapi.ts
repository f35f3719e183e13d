// GET /api/openapi.json: an OpenAPI 3.1 document assembled, on each request, from the kernel's own routes
// (kernel-docs.ts), the routes every loaded extension declares (with the schemas its plugin.toml names in
// [server.openapi]) and the three doors that are no REST route (/metrics, /mcp, /ws). Loading or
// unloading an extension changes the route table, so the document follows. A route that declares no
// response schema is marked `x-roost-response-undescribed: true` (its success body is then any JSON):
// the gap is visible in the document, and test/kernel/openapi.test.ts lists the routes that have one.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type Router from '@koa/router';
import { schemasDir } from '../../protocol/paths.js';
import type { RouteDoc } from '../host/manifest.js';
import { withoutLocalRefs } from '../host/schema-files.js';
import type { Kernel } from '../kernel.js';
import type { State } from './app.js';
import { isKernelPublicRoute } from './routes/index.js';
import { KERNEL_ROUTE_DOCS } from './routes/kernel-docs.js';

type Schema = Record<string, unknown>;
type Operation = Record<string, unknown>;

/** The extension on the operation of a route whose success body no schema describes. */
export const UNDESCRIBED = 'x-roost-response-undescribed';

interface DocumentedRoute {
  method: string;
  path: string;
  owner: string;
  public: boolean;
  raw: boolean;
  doc: RouteDoc & { responses?: Record<string, { description: string; schema: Schema }> };
}

const ERROR_REF = { $ref: '#/components/schemas/Error' };
const ERROR_RESPONSE = { description: 'an error', content: { 'application/json': { schema: ERROR_REF } } };
const kernelSchema = (file: string): Schema => JSON.parse(readFileSync(join(schemasDir, file), 'utf8')) as Schema;

export function openApiDocument(k: Kernel, router: Router<State>): Schema {
  const paths: Record<string, Record<string, Operation>> = { ...FRONT_DOORS };
  for (const route of [...kernelRoutes(router), ...extensionRoutes(k)]) {
    const item = (paths[openApiPath(route.path)] ??= {});
    item[route.method.toLowerCase()] = operation(route);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Roost',
      version: k.version,
      description: `The agent orchestration server: the kernel and every loaded extension. Errors share one body shape (Error). An operation marked ${UNDESCRIBED} declares no schema for its success body yet.`,
    },
    servers: [{ url: '/' }],
    paths: Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b))),
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'An API key: Authorization: Bearer <key> (an agent on /mcp: its session token)' } },
      schemas: { Error: kernelSchema('api/error.json') },
    },
    security: [{ bearer: [] }],
  };
}

function kernelRoutes(router: Router<State>): DocumentedRoute[] {
  return router.stack.flatMap((layer) =>
    layer.methods.filter((m) => m !== 'HEAD').map((method) => {
      const doc = KERNEL_ROUTE_DOCS[`${method} ${layer.path}`];
      return {
        method,
        path: String(layer.path),
        owner: 'kernel',
        public: isKernelPublicRoute(method, String(layer.path)),
        raw: false,
        doc: doc
          ? selfContained({
              summary: doc.summary,
              ...(doc.query ? { query: kernelSchema(doc.query) } : {}),
              ...(doc.request ? { request: kernelSchema(doc.request) } : {}),
              ...(doc.response ? { response: kernelSchema(doc.response) } : {}),
              ...(doc.status ? { status: doc.status } : {}),
              ...(doc.contentType ? { contentType: doc.contentType } : {}),
              ...(doc.responses ? { responses: Object.fromEntries(Object.entries(doc.responses).map(([status, r]) => [status, { description: r.description, schema: kernelSchema(r.schema) }])) } : {}),
            })
          : {},
      };
    }),
  );
}

function extensionRoutes(k: Kernel): DocumentedRoute[] {
  return k.routes
    .all()
    .filter(({ decl }) => !decl.internal)
    .map(({ owner, decl }) => ({ method: decl.method, path: decl.path, owner, public: decl.public, raw: decl.raw, doc: selfContained(decl.doc ?? {}) }));
}

/**
 * Each schema file is its own JSON Schema resource, and its `#/$defs/…` references mean that file; once
 * inlined into the document they would mean the document. So they are replaced by what they name.
 */
function selfContained<T extends DocumentedRoute['doc']>(doc: T): T {
  const out: T = { ...doc };
  const inline = (schema: Schema) => withoutLocalRefs(schema, (schema.$defs ?? {}) as Record<string, Schema>) as Schema;
  for (const part of ['query', 'request', 'response'] as const) {
    const schema = doc[part];
    if (schema) out[part] = inline(schema);
  }
  if (doc.responses) out.responses = Object.fromEntries(Object.entries(doc.responses).map(([status, r]) => [status, { ...r, schema: inline(r.schema) }]));
  return out;
}


function operation(route: DocumentedRoute): Operation {
  const { doc } = route;
  const status = String(doc.status ?? 200);
  const undescribed = status !== '204' && !doc.response && !doc.contentType;
  const success = status === '204'
    ? { description: 'done, no body' }
    : doc.contentType
      ? { description: 'success', content: { [doc.contentType]: { schema: { type: 'string' } } } }
      : { description: undescribed ? 'success (its body is not described yet: the route declares no response schema)' : 'success', content: { 'application/json': { schema: doc.response ?? {} } } };
  const others = Object.fromEntries(Object.entries(doc.responses ?? {}).map(([code, r]) => [code, { description: r.description, content: { 'application/json': { schema: r.schema } } }]));
  const parameters = [...pathParameters(route.path), ...queryParameters(doc.query)];
  return {
    operationId: operationId(route),
    tags: [route.owner],
    ...(doc.summary ? { summary: doc.summary } : {}),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(requestBody(route) ?? {}),
    ...(route.public ? { security: [] } : {}),
    ...(undescribed ? { [UNDESCRIBED]: true } : {}),
    responses: { [status]: success, ...others, default: ERROR_RESPONSE },
  };
}

function requestBody(route: DocumentedRoute): { requestBody: Schema } | undefined {
  if (route.doc.request) return { requestBody: { required: true, content: { 'application/json': { schema: route.doc.request } } } };
  // A raw route receives the body as it was sent (a signed webhook, say): any content.
  if (route.raw) return { requestBody: { content: { '*/*': { schema: {} } } } };
  return undefined;
}

function pathParameters(path: string): Schema[] {
  return [...path.matchAll(/:(\w+)/g)].map(([, name]) => ({ name, in: 'path', required: true, schema: { type: 'string' } }));
}

function queryParameters(query: Schema | undefined): Schema[] {
  const properties = (query?.properties ?? {}) as Record<string, Schema>;
  const required = new Set((query?.required ?? []) as string[]);
  return Object.entries(properties).map(([name, { description, ...schema }]) => ({ name, in: 'query', required: required.has(name), ...(description ? { description } : {}), schema }));
}

/** Express-style `:id` as OpenAPI's `{id}`. */
function openApiPath(path: string): string {
  return path.replace(/:(\w+)/g, '{$1}');
}

function operationId(route: DocumentedRoute): string {
  const words = route.path.split('/').filter(Boolean).map((part) => (part.startsWith(':') ? `by-${part.slice(1)}` : part));
  return [route.method.toLowerCase(), ...words].join('-').replace(/[^A-Za-z0-9-]/g, '-');
}

/** The doors that are no REST route: Prometheus, the MCP endpoint and the WebSocket. */
const FRONT_DOORS: Record<string, Record<string, Operation>> = {
  '/metrics': {
    get: {
      operationId: 'get-metrics',
      tags: ['kernel'],
      summary: "The server's figures in Prometheus' text format: requests, latency, extensions, databases, queue depths (the instance owner, or a scraper whose bearer is ROOST_METRICS_KEY)",
      responses: {
        200: { description: 'Prometheus text exposition format 0.0.4', content: { 'text/plain; version=0.0.4; charset=utf-8': { schema: { type: 'string' } } } },
        default: ERROR_RESPONSE,
      },
    },
  },
  '/mcp': {
    post: {
      operationId: 'post-mcp',
      tags: ['kernel'],
      summary: 'The Model Context Protocol (streamable HTTP, stateless): JSON-RPC 2.0 initialize, tools/list, tools/call of every tool the loaded extensions declare (people: an API key; agents: their session token)',
      requestBody: { required: true, content: { 'application/json': { schema: { description: 'a JSON-RPC 2.0 request or notification, or a batch of them', type: ['object', 'array'] } } } },
      responses: {
        200: { description: 'the JSON-RPC answer, as JSON or as a server-sent event stream (the client chooses by its Accept header)', content: { 'application/json': { schema: { type: ['object', 'array'] } }, 'text/event-stream': { schema: { type: 'string' } } } },
        202: { description: 'a notification or response accepted (no body)' },
        default: ERROR_RESPONSE,
      },
    },
    delete: {
      operationId: 'delete-mcp',
      tags: ['kernel'],
      summary: 'End an MCP session (the server keeps none: nothing to end)',
      responses: { default: { description: "the MCP SDK's answer" } },
    },
  },
  '/ws': {
    get: {
      operationId: 'get-ws',
      tags: ['kernel'],
      summary: 'The JSON WebSocket: upgrade with the API key as bearer, or a one-time ticket (POST /api/ws/ticket) for browsers; the server sends welcome, pings every 30 s; clients subscribe to streams and send the message types the extensions declare',
      parameters: [{ name: 'ticket', in: 'query', required: false, description: 'a one-time ticket instead of the Authorization header', schema: { type: 'string' } }],
      responses: {
        101: { description: 'Switching Protocols: the WebSocket is open' },
        default: ERROR_RESPONSE,
      },
    },
  },
};
