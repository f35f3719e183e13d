// What the OpenAPI document says of the kernel's own routes (extensions say it of theirs in plugin.toml,
// [server.openapi]). Schema paths are under schemas/. A kernel route missing here, or without a
// response schema, is a test failure (test/kernel/openapi.test.ts), so the document cannot fall behind
// the router.
export interface KernelRouteDoc {
  summary: string;
  query?: string;
  request?: string;
  /** The success body's schema; for a body that is not JSON, `contentType` says what it is instead. */
  response?: string;
  /** A success body that is not JSON (the device verification page: text/html). */
  contentType?: string;
  status?: number;
  /** Answers besides the success and the shared Error body (a 503 readiness, RFC 6749 error bodies). */
  responses?: Record<string, { description: string; schema: string }>;
}

export const KERNEL_ROUTE_DOCS: Record<string, KernelRouteDoc> = {
  'GET /health/live': { summary: 'Liveness: the process answers', response: 'api/health-live.json' },
  'GET /health/ready': { summary: 'Readiness: the server can serve (503 with reasons while it cannot)', response: 'api/health-ready.json', responses: { 503: { description: 'not ready: starting, degraded or stopping, with the reasons', schema: 'api/health-ready.json' } } },
  'GET /api/health': { summary: 'Version, uptime, schema versions and the state of every extension', response: 'api/health.json' },
  'GET /api/openapi.json': { summary: 'This document: the routes of the kernel and of every loaded extension', response: 'api/openapi-document.json' },
  'GET /api/operational-mode': { summary: 'The operational mode and the modes there are', response: 'api/operational-mode-state.json' },
  'POST /api/operational-mode': { summary: 'Set the operational mode (instance owner)', request: 'api/operational-mode.json', response: 'api/operational-mode.json' },
  'GET /api/settings': { summary: "The caller's tenant, role, settings and the server's limits", response: 'api/settings.json' },
  'POST /api/ws/ticket': { summary: 'A one-time WebSocket ticket, so a browser never puts its key in a URL', status: 201, response: 'api/ws-ticket.json' },
  'POST /api/selftest/run': { summary: "The server's checks against itself: stores, audit chain, every extension's health, a session round trip through REST, WebSocket and MCP on the echo provider (instance owner; one at a time)", request: 'api/selftest-run.json', response: 'api/selftest-report.json' },
  'POST /api/backup': { summary: 'Back up every database (instance owner)', status: 201, response: 'api/backup.json' },
  'POST /api/settings/api-key/rotate': { summary: 'Rotate the calling key (owner); the old key works for a grace period', status: 201, response: 'api/api-key-rotated.json' },
  'GET /api/settings/api-key/status': { summary: 'Rotation and expiry status of the calling key', response: 'api/api-key-status.json' },
  'POST /api/tenants/register': { summary: 'Register a tenant; answers its first owner key', request: 'api/tenant-register.json', status: 201, response: 'api/tenant-registered.json' },
  'GET /api/tenants/me': { summary: "The caller's tenant: its plan, limits and billing state", response: 'api/tenant.json' },
  'GET /api/tenants/me/members': { summary: "The tenant's members (operator)", response: 'api/members.json' },
  'POST /api/tenants/me/members': { summary: 'Add a member: a new key with a role (owner)', request: 'api/member-create.json', status: 201, response: 'api/member-created.json' },
  'DELETE /api/tenants/me/members/:keyHash': { summary: 'Remove a member (owner); the last working owner key cannot go', status: 204 },
  'POST /api/auth/device': { summary: 'RFC 8628 device authorization request (public; form or JSON: client_id)', response: 'api/device-authorization.json', responses: { 400: { description: 'an RFC 6749 error', schema: 'api/oauth-error.json' } } },
  'POST /api/auth/device/token': { summary: 'RFC 8628 device access token request (public; form or JSON): the key, or authorization_pending, slow_down, access_denied, expired_token', response: 'api/device-token.json', responses: { 400: { description: 'an RFC 6749 error: authorization_pending, slow_down, access_denied, expired_token, …', schema: 'api/oauth-error.json' } } },
  'POST /api/auth/device/authorize': { summary: "Approve or deny a device's user code for the caller's tenant and role", response: 'api/device-decision.json' },
  'GET /api/auth/verify': { summary: 'The device verification page (HTML)', contentType: 'text/html' },
  'GET /api/plugins': { summary: 'The extensions: state, capabilities, routes, tools, requires, uses and dependents', response: 'api/plugins.json' },
  'POST /api/plugins/load': { summary: 'Load an extension by name or absolute path (instance owner)', request: 'api/plugin-load.json', status: 201, response: 'api/plugin.json' },
  'POST /api/plugins/:name/unload': { summary: 'Unload an extension (instance owner); ?force=true unloads those that require it too', query: 'api/plugin-force.json', response: 'api/plugin.json' },
  'POST /api/plugins/:name/grant': { summary: 'Grant an extension a capability (instance owner)', request: 'api/plugin-grant.json', response: 'api/plugin.json' },
  'POST /api/plugins/:name/revoke': { summary: 'Revoke a capability from an extension (instance owner); ?force=true even while others require it', query: 'api/plugin-force.json', request: 'api/plugin-grant.json', response: 'api/plugin.json' },
  'GET /api/audit-log': { summary: "The tenant's audit log, newest first", query: 'api/audit-query.json', response: 'api/audit-page.json' },
  'GET /api/audit-log/verify': { summary: 'Verify the hash chain of the audit log', response: 'api/audit-verify.json' },
  'GET /.well-known/agent-card.json': { summary: "The server's A2A agent card", response: 'api/agent-card.json' },
};
