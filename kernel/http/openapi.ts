// GET /api/openapi.json: an OpenAPI 3.1 document assembled, on each request, from the kernel's own routes
// and the routes every loaded extension declares (with the schemas its plugin.toml names in
// [server.openapi]). Loading or unloading an extension changes the route table, so the document follows.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type Router from '@koa/router';
import { schemasDir } from '../../protocol/paths.js';
import type { RouteDoc } from '../host/manifest.js';
import type { Kernel } from '../kernel.js';
import type { State } from './app.js';
import { isKernelPublicRoute } from './routes/index.js';
import { KERNEL_ROUTE_DOCS } from './routes/kernel-docs.js';

type Schema = Record<string, unknown>;
type Operation = Record<string, unknown>;

interface DocumentedRoute {
  method: string;
  path: string;
  owner: string;
  public: boolean;
  raw: boolean;
  doc: RouteDoc;
}

const ERROR_REF = { $ref: '#/components/schemas/Error' };
const kernelSchema = (file: string): Schema => JSON.parse(readFileSync(join(schemasDir, file), 'utf8')) as Schema;

export function openApiDocument(k: Kernel, router: Router<State>): Schema {
  const paths: Record<string, Record<string, Operation>> = {};
  for (const route of [...kernelRoutes(router), ...extensionRoutes(k)]) {
    const item = (paths[openApiPath(route.path)] ??= {});
    item[route.method.toLowerCase()] = operation(route);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Roost',
      version: k.version,
      description: 'The agent orchestration server: the kernel and every loaded extension. Errors share one body shape (Error).',
    },
    servers: [{ url: '/' }],
    paths: Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b))),
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'An API key: Authorization: Bearer <key>' } },
      schemas: { Error: kernelSchema('api/error.json') },
    },
    security: [{ bearer: [] }],
  };
}

function kernelRoutes(router: Router<State>): DocumentedRoute[] {
  return router.stack.flatMap((layer) =>
    layer.methods.filter((m) => m !== 'HEAD').map((method) => {
      const key = `${method} ${layer.path}`;
      const doc = KERNEL_ROUTE_DOCS[key];
      return {
        method,
        path: String(layer.path),
        owner: 'kernel',
        public: isKernelPublicRoute(method, String(layer.path)),
        raw: false,
        doc: doc
          ? {
              summary: doc.summary,
              ...(doc.query ? { query: kernelSchema(doc.query) } : {}),
              ...(doc.request ? { request: kernelSchema(doc.request) } : {}),
              ...(doc.response ? { response: kernelSchema(doc.response) } : {}),
              ...(doc.status ? { status: doc.status } : {}),
            }
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
function selfContained(doc: RouteDoc): RouteDoc {
  const out: RouteDoc = { ...doc };
  for (const part of ['query', 'request', 'response'] as const) {
    const schema = doc[part];
    if (schema) out[part] = withoutLocalRefs(schema, (schema.$defs ?? {}) as Record<string, Schema>) as Schema;
  }
  return out;
}

function withoutLocalRefs(node: unknown, defs: Record<string, Schema>, depth = 0): unknown {
  if (Array.isArray(node)) return node.map((item) => withoutLocalRefs(item, defs, depth));
  if (!node || typeof node !== 'object') return node;
  const ref = (node as Schema).$ref;
  if (typeof ref === 'string' && ref.startsWith('#/$defs/') && depth < 16) {
    const target = defs[ref.slice('#/$defs/'.length)];
    if (target) return withoutLocalRefs(target, defs, depth + 1);
  }
  return Object.fromEntries(Object.entries(node).filter(([key]) => key !== '$defs' && key !== '$schema').map(([key, value]) => [key, withoutLocalRefs(value, defs, depth)]));
}

function operation(route: DocumentedRoute): Operation {
  const { doc } = route;
  const status = String(doc.status ?? 200);
  const success = status === '204'
    ? { description: 'done, no body' }
    : { description: 'success', content: { 'application/json': { schema: doc.response ?? { type: 'object' } } } };
  const parameters = [...pathParameters(route.path), ...queryParameters(doc.query)];
  return {
    operationId: operationId(route),
    tags: [route.owner],
    ...(doc.summary ? { summary: doc.summary } : {}),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(requestBody(route) ?? {}),
    ...(route.public ? { security: [] } : {}),
    responses: {
      [status]: success,
      default: { description: 'an error', content: { 'application/json': { schema: ERROR_REF } } },
    },
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
  return Object.entries(properties).map(([name, schema]) => ({ name, in: 'query', required: required.has(name), schema }));
}

/** Express-style `:id` as OpenAPI's `{id}`. */
function openApiPath(path: string): string {
  return path.replace(/:(\w+)/g, '{$1}');
}

function operationId(route: DocumentedRoute): string {
  const words = route.path.split('/').filter(Boolean).map((part) => (part.startsWith(':') ? `by-${part.slice(1)}` : part));
  return [route.method.toLowerCase(), ...words].join('-').replace(/[^A-Za-z0-9-]/g, '-');
}
