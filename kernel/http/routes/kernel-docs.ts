// What the OpenAPI document says of the kernel's own routes (extensions say it of theirs in plugin.toml,
// [server.openapi]) and of its doors that are no REST route: data only, rendered by an extension
// (through `route_table`, route-declarations.ts). Schema paths are under schemas/. A kernel
// route missing here, or named here and not served, stops the server's start (registerKernelRoutes); one
// without a response schema is a test failure (test/kernel/openapi.test.ts).
export interface KernelRouteDoc {
  summary: string;
  query?: string;
  request?: string;
  /** The success body's schema; for a body that is not JSON, `contentType` says what it is instead. */
  response?: string;
  /** A success body that is not JSON (text/html, text/plain). */
  contentType?: string;
  status?: number;
  /** Answers besides the success and the shared Error body (a 503 readiness, RFC 6749 error bodies). */
  responses?: Record<string, { description: string; schema: string }>;
}

export const KERNEL_ROUTE_DOCS: Record<string, KernelRouteDoc> = {
  'GET /health/live': { summary: 'Liveness: the process answers', response: 'api/health-live.json' },
  'GET /health/ready': { summary: 'Readiness: the server can serve (503 with reasons while it cannot)', response: 'api/health-ready.json', responses: { 503: { description: 'not ready: starting, degraded or stopping, with the reasons', schema: 'api/health-ready.json' } } },
  'GET /api/health': { summary: 'Version, uptime, schema versions and the state of every extension', response: 'api/health.json' },
  'GET /api/operational-mode': { summary: 'The operational mode and the modes there are', response: 'api/operational-mode-state.json' },
  'POST /api/operational-mode': { summary: 'Set the operational mode (instance owner)', request: 'api/operational-mode.json', response: 'api/operational-mode.json' },
  'GET /api/settings': { summary: "The caller's tenant, role, settings and the server's limits", response: 'api/settings.json' },
  'POST /api/ws/ticket': { summary: 'A one-time WebSocket ticket, so a browser never puts its key in a URL', status: 201, response: 'api/ws-ticket.json' },
  'POST /api/selftest/run': { summary: "The server's checks against itself: stores, audit chain, every extension's health, and the end-to-end checks of the extensions that declare self_checks (in-tree: a session round trip through REST, WebSocket and MCP on the echo provider; instance owner; one at a time)", request: 'api/selftest-run.json', response: 'api/selftest-report.json' },
  'POST /api/backup': { summary: 'Back up every database (instance owner)', status: 201, response: 'api/backup.json' },
  'POST /api/settings/api-key/rotate': { summary: 'Rotate the calling key (owner); the old key works for a grace period', status: 201, response: 'api/api-key-rotated.json' },
  'GET /api/settings/api-key/status': { summary: 'Rotation and expiry status of the calling key', response: 'api/api-key-status.json' },
  'POST /api/tenants/register': { summary: 'Register a tenant; answers its first owner key', request: 'api/tenant-register.json', status: 201, response: 'api/tenant-registered.json' },
  'GET /api/tenants/me': { summary: "The caller's tenant: its plan, limits and billing state", response: 'api/tenant.json' },
  'GET /api/tenants/me/members': { summary: "The tenant's members (operator)", response: 'api/members.json' },
  'POST /api/tenants/me/members': { summary: 'Add a member: a new key with a role (owner)', request: 'api/member-create.json', status: 201, response: 'api/member-created.json' },
  'DELETE /api/tenants/me/members/:keyHash': { summary: 'Remove a member (owner); the last working owner key cannot go', status: 204 },
  'GET /api/plugins': { summary: 'The extensions: state, capabilities, routes, tools, requires, uses and dependents', response: 'api/plugins.json' },
  'POST /api/plugins/load': { summary: 'Load an extension by name or absolute path (instance owner)', request: 'api/plugin-load.json', status: 201, response: 'api/plugin.json' },
  'POST /api/plugins/:name/unload': { summary: 'Unload an extension (instance owner); ?force=true unloads those that require it too', query: 'api/plugin-force.json', response: 'api/plugin.json' },
  'POST /api/plugins/:name/grant': { summary: 'Grant an extension a capability (instance owner)', request: 'api/plugin-grant.json', response: 'api/plugin.json' },
  'POST /api/plugins/:name/revoke': { summary: 'Revoke a capability from an extension (instance owner); ?force=true even while others require it', query: 'api/plugin-force.json', request: 'api/plugin-grant.json', response: 'api/plugin.json' },
  'GET /api/audit-log': { summary: "The tenant's audit log, newest first", query: 'api/audit-query.json', response: 'api/audit-page.json' },
  'GET /api/audit-log/verify': { summary: 'Verify the hash chain of the audit log', response: 'api/audit-verify.json' },
};

const ERROR_RESPONSE = { description: 'an error', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };

/** The doors that are no REST route: the MCP endpoint and the WebSocket. */
export const KERNEL_DOORS: Record<string, Record<string, Record<string, unknown>>> = {
  '/mcp': {
    post: {
      operationId: 'post-mcp',
      tags: ['kernel'],
      summary: 'The Model Context Protocol (streamable HTTP, stateless): JSON-RPC 2.0 initialize, tools/list, tools/call of every tool the loaded extensions declare (people: an API key; agents: their session token)',
      requestBody: { required: true, content: { 'application/json': { schema: { description: 'a JSON-RPC 2.0 request or notification, or a batch of them', type: ['object', 'array'] } } } },
      responses: {
        200: { description: 'the JSON-RPC answer, as JSON or as a server-sent event stream (the client chooses by its Accept header)', content: { 'application/json': { schema: { type: ['object', 'array'] } }, 'text/event-stream': { schema: { type: 'string' } } } },
        202: { description: 'a notification or response accepted (no body)' },
        400: { ...ERROR_RESPONSE, description: 'not a JSON-RPC message, or a batch in a protocol version that has none (2025-06-18 and later)' },
        401: { ...ERROR_RESPONSE, description: 'no key or token' },
        403: { ...ERROR_RESPONSE, description: 'a key or session token that is unknown, expired or revoked, or a browser page of a foreign origin' },
        429: { ...ERROR_RESPONSE, description: 'too many requests from this key or address' },
        default: ERROR_RESPONSE,
      },
    },
    delete: {
      operationId: 'delete-mcp',
      tags: ['kernel'],
      summary: 'End an MCP session (the server keeps none: nothing to end)',
      responses: { 401: { ...ERROR_RESPONSE, description: 'no key or token' }, default: { description: "the MCP SDK's answer" } },
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
        401: { description: 'the upgrade is refused: no key and no ticket' },
        403: { description: 'the upgrade is refused: an unknown key, a used or made-up ticket, or a browser page of a foreign origin' },
        default: ERROR_RESPONSE,
      },
    },
  },
};
