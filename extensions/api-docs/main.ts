// The api-docs extension: GET /api/openapi.json, rendered on each request from the route table the
// kernel declares (`route_table`), so loading or unloading an extension changes the document at once.
import { runExtension } from '../../sdk/extension.js';
import { ok } from '../../sdk/http.js';
import type { RouteTableReply } from '../../protocol/messages.js';
import { openApiDocument } from './document.js';

runExtension({
  routes: {
    'GET /api/openapi.json': async (_req, ctx) => {
      const [declarations, { version }] = await Promise.all([ctx.host.routeTable<RouteTableReply>(), ctx.host.metadata(['version'])]);
      return ok(openApiDocument(declarations, String(version)));
    },
  },
});
