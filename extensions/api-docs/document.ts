// The OpenAPI 3.1 document, rendered from what the kernel declares (`route_table`): its own routes and
// every loaded extension's (with the schemas its plugin.toml names in [server.openapi]), the doors that
// are no REST route (/mcp, /ws) and the Error body. A route that declares no response schema is marked
// `x-roost-response-undescribed: true` (its success body is then any JSON): the gap is visible in the
// document, and test/kernel/openapi.test.ts lists the routes that have one. Each operation lists the error
// answers its route can really give, from what the kernel's door does to every request (errorResponses).
import type { DeclaredRoute, RouteTableReply } from '../../protocol/messages.js';

type Schema = Record<string, unknown>;
type Operation = Record<string, unknown>;

/** The extension on the operation of a route whose success body no schema describes. */
export const UNDESCRIBED = 'x-roost-response-undescribed';

const ERROR_RESPONSE = { description: 'an error', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

const retryAfter = { 'Retry-After': { description: 'seconds to wait before trying again', schema: { type: 'integer', minimum: 0 } } };
const errorAnswer = (description: string, headers?: Schema) => ({ ...ERROR_RESPONSE, description, ...(headers ? { headers } : {}) });

/** The error answers the kernel's door gives, each with the codes the Error body carries. */
const ERROR_ANSWERS = {
  BadRequest: errorAnswer('the request does not validate: its parameters, query or body (VALIDATION_ERROR, BAD_JSON)'),
  Unauthorized: errorAnswer('no key where one is needed, or a key that is unknown, expired or revoked (AUTH_REQUIRED, INVALID_API_KEY)'),
  Forbidden: errorAnswer("the caller may not: its role, a viewer's change, a tenant that reads only, or a browser page of a foreign origin (FORBIDDEN)"),
  NotFound: errorAnswer('nothing of that id in the caller\'s tenant (NOT_FOUND)'),
  PayloadTooLarge: errorAnswer('the body is larger than the server takes (PAYLOAD_TOO_LARGE)'),
  RateLimited: errorAnswer('too many requests from this key or address (RATE_LIMITED)', retryAfter),
  Unavailable: errorAnswer('cannot answer now: the serving extension is starting, restarting or not loaded, or storage is unreachable (EXTENSION_UNAVAILABLE, DATABASE_UNAVAILABLE, AUDIT_UNAVAILABLE)', retryAfter),
  Timeout: errorAnswer('the serving extension did not answer in time (EXTENSION_TIMEOUT)'),
  StorageFull: errorAnswer('the disk is full: nothing was changed (STORAGE_FULL)'),
} as const;
type ErrorAnswer = keyof typeof ERROR_ANSWERS;

/** What each route can answer besides success: every request passes the same door (kernel/http/app.ts). */
function errorResponses(route: DeclaredRoute): Record<string, { $ref: string }> {
  const mutating = MUTATING.has(route.method);
  const takesInput = route.path.includes(':') || route.doc.query !== undefined || route.doc.request !== undefined || mutating;
  const answers: Array<[number, ErrorAnswer, boolean]> = [
    [400, 'BadRequest', takesInput],
    // A key that is sent is checked, even on a public route.
    [401, 'Unauthorized', true],
    [403, 'Forbidden', true],
    [404, 'NotFound', route.path.includes(':')],
    [413, 'PayloadTooLarge', mutating],
    [429, 'RateLimited', true],
    [503, 'Unavailable', true],
    [504, 'Timeout', route.owner !== 'kernel'],
    [507, 'StorageFull', mutating],
  ];
  return Object.fromEntries(answers.filter(([, , applies]) => applies).map(([status, name]) => [String(status), { $ref: `#/components/responses/${name}` }]));
}

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
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: '/' }],
    paths: Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b))),
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'An API key: Authorization: Bearer <key> (an agent on /mcp: its session token)' } },
      schemas: { Error: declarations.errorSchema },
      responses: ERROR_ANSWERS,
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
    responses: { [status]: success, ...errorResponses(route), ...others, default: ERROR_RESPONSE },
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
