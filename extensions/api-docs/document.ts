// The OpenAPI 3.1 document, rendered from what the kernel declares (`route_table`): its own routes and
// every loaded extension's (with the schemas its plugin.toml names in [server.openapi]), the doors that
// are no REST route (/mcp, /ws) and the Error body. A route that declares no response schema is marked
// `x-roost-response-undescribed: true` (its success body is then any JSON): the gap is visible in the
// document, and test/kernel/openapi.test.ts lists the routes that have one.
import type { DeclaredRoute, RouteTableReply } from '../../protocol/messages.js';

type Schema = Record<string, unknown>;
type Operation = Record<string, unknown>;

/** The extension on the operation of a route whose success body no schema describes. */
export const UNDESCRIBED = 'x-roost-response-undescribed';

const ERROR_RESPONSE = { description: 'an error', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };

export function openApiDocument(declarations: RouteTableReply, version: string): Schema {
  const paths: Record<string, Record<string, Operation>> = { ...declarations.doors };
  for (const route of declarations.routes) {
    const item = (paths[openApiPath(route.path)] ??= {});
    item[route.method.toLowerCase()] = operation(route);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Roost',
      version,
      description: `The agent orchestration server: the kernel and every loaded extension. Errors share one body shape (Error). An operation marked ${UNDESCRIBED} declares no schema for its success body yet.`,
    },
    servers: [{ url: '/' }],
    paths: Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b))),
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'An API key: Authorization: Bearer <key> (an agent on /mcp: its session token)' } },
      schemas: { Error: declarations.errorSchema },
    },
    security: [{ bearer: [] }],
  };
}

function operation(route: DeclaredRoute): Operation {
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

function requestBody(route: DeclaredRoute): { requestBody: Schema } | undefined {
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

function operationId(route: DeclaredRoute): string {
  const words = route.path.split('/').filter(Boolean).map((part) => (part.startsWith(':') ? `by-${part.slice(1)}` : part));
  return [route.method.toLowerCase(), ...words].join('-').replace(/[^A-Za-z0-9-]/g, '-');
}
