// What the OpenAPI document says of the kernel's own routes (extensions say it of theirs in plugin.toml,
// [server.openapi]). Schema paths are under schemas/. A kernel route missing here is a test failure
// (test/kernel/openapi.test.ts), so the document cannot fall behind the router.
export interface KernelRouteDoc {
  summary: string;
  query?: string;
  request?: string;
  response?: string;
  status?: number;
}

export const KERNEL_ROUTE_DOCS: Record<string, KernelRouteDoc> = {
  'GET /health/live': { summary: 'Liveness: the process answers', response: 'api/health-live.json' },
  'GET /health/ready': { summary: 'Readiness: the server can serve (503 with reasons while it cannot)', response: 'api/health-ready.json' },
  'GET /api/health': { summary: 'Version, uptime, schema versions and the state of every extension', response: 'api/health.json' },
  'GET /api/openapi.json': { summary: 'This document: the routes of the kernel and of every loaded extension' },
  'GET /api/operational-mode': { summary: 'The operational mode and the modes there are', response: 'api/operational-mode-state.json' },
  'POST /api/operational-mode': { summary: 'Set the operational mode (instance owner)', request: 'api/operational-mode.json' },
  'GET /api/settings': { summary: "The caller's tenant, role, settings and the server's limits" },
  'POST /api/ws/ticket': { summary: 'A one-time WebSocket ticket, so a browser never puts its key in a URL', status: 201 },
  'POST /api/selftest/run': { summary: "The server's checks against itself: stores, audit chain, every extension, a round trip through REST, WebSocket and MCP (instance owner; one at a time)", request: 'api/selftest-run.json', response: 'api/selftest-report.json' },
  'POST /api/backup': { summary: 'Back up every database (instance owner)', status: 201 },
  'POST /api/settings/api-key/rotate': { summary: 'Rotate the calling key (owner); the old key works for a grace period', status: 201 },
  'GET /api/settings/api-key/status': { summary: 'Rotation and expiry status of the calling key' },
  'POST /api/tenants/register': { summary: 'Register a tenant; answers its first owner key', request: 'api/tenant-register.json', status: 201 },
  'GET /api/tenants/me': { summary: "The caller's tenant: its plan, limits and billing state" },
  'GET /api/tenants/me/members': { summary: "The tenant's members (operator)" },
  'POST /api/tenants/me/members': { summary: 'Add a member: a new key with a role (owner)', request: 'api/member-create.json', status: 201 },
  'DELETE /api/tenants/me/members/:keyHash': { summary: 'Remove a member (owner); the last working owner key cannot go', status: 204 },
  'POST /api/auth/device': { summary: 'RFC 8628 device authorization request (public; form or JSON: client_id)' },
  'POST /api/auth/device/token': { summary: 'RFC 8628 device access token request (public; form or JSON): the key, or authorization_pending, slow_down, access_denied, expired_token' },
  'POST /api/auth/device/authorize': { summary: "Approve or deny a device's user code for the caller's tenant and role" },
  'GET /api/auth/verify': { summary: 'The device verification page (HTML)' },
  'GET /api/plugins': { summary: 'The extensions: state, capabilities, routes, tools' },
  'POST /api/plugins/load': { summary: 'Load an extension by name or absolute path (instance owner)', request: 'api/plugin-load.json', status: 201 },
  'POST /api/plugins/:name/unload': { summary: 'Unload an extension (instance owner)' },
  'POST /api/plugins/:name/grant': { summary: 'Grant an extension a capability (instance owner)', request: 'api/plugin-grant.json' },
  'POST /api/plugins/:name/revoke': { summary: 'Revoke a capability from an extension (instance owner)', request: 'api/plugin-grant.json' },
  'GET /api/audit-log': { summary: "The tenant's audit log, newest first", query: 'api/audit-query.json' },
  'GET /api/audit-log/verify': { summary: 'Verify the hash chain of the audit log' },
  'GET /.well-known/agent-card.json': { summary: "The server's A2A agent card" },
};
