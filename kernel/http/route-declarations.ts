// What the `route_table` message answers (capability `route_table`): every route a client can reach —
// the kernel's own (routes/kernel-docs.ts) and every loaded extension's, internal ones left out — with
// its owner, whether it is public or raw, and what its [server.openapi] entry (or the kernel's) says,
// each schema made self-contained; the kernel's doors that are no REST route; and the one Error body.
// The kernel declares; an extension renders the OpenAPI document from this.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DeclaredRoute, RouteTableReply } from '../../protocol/messages.js';
import { schemasDir } from '../../lib/paths.js';
import { withoutLocalRefs } from '../host/schema-files.js';
import type { RouteTable } from './route-table.js';
import { isKernelPublicRoute } from './routes/index.js';
import { KERNEL_DOORS, KERNEL_ROUTE_DOCS } from './routes/kernel-docs.js';

type Schema = Record<string, unknown>;

const kernelSchema = (file: string): Schema => JSON.parse(readFileSync(join(schemasDir, file), 'utf8')) as Schema;

export function routeDeclarations(routes: RouteTable): RouteTableReply {
  return { routes: [...kernelRoutes(), ...extensionRoutes(routes)], doors: KERNEL_DOORS, errorSchema: kernelSchema('api/error.json') };
}

/** The kernel's routes, as kernel-docs.ts declares them (registerKernelRoutes checks it names every one). */
function kernelRoutes(): DeclaredRoute[] {
  return Object.entries(KERNEL_ROUTE_DOCS).map(([key, doc]) => {
    const [method, path] = key.split(' ') as [string, string];
    return {
      owner: 'kernel',
      method,
      path,
      public: isKernelPublicRoute(method, path),
      raw: false,
      doc: selfContained({
        summary: doc.summary,
        ...(doc.query ? { query: kernelSchema(doc.query) } : {}),
        ...(doc.request ? { request: kernelSchema(doc.request) } : {}),
        ...(doc.response ? { response: kernelSchema(doc.response) } : {}),
        ...(doc.status ? { status: doc.status } : {}),
        ...(doc.contentType ? { contentType: doc.contentType } : {}),
        ...(doc.responses ? { responses: Object.fromEntries(Object.entries(doc.responses).map(([status, r]) => [status, { description: r.description, schema: kernelSchema(r.schema) }])) } : {}),
      }),
    };
  });
}

function extensionRoutes(routes: RouteTable): DeclaredRoute[] {
  return routes
    .all()
    .filter(({ decl }) => !decl.internal)
    .map(({ owner, decl }) => ({ owner, method: decl.method, path: decl.path, public: decl.public, raw: decl.raw, doc: selfContained(decl.doc ?? {}) }));
}

/**
 * Each schema file is its own JSON Schema resource, and its `#/$defs/…` references mean that file; once
 * inlined into a document they would mean the document. So they are replaced by what they name.
 */
function selfContained<T extends DeclaredRoute['doc']>(doc: T): T {
  const out: T = { ...doc };
  const inline = (schema: Schema) => withoutLocalRefs(schema, (schema.$defs ?? {}) as Record<string, Schema>) as Schema;
  for (const part of ['query', 'request', 'response'] as const) {
    const schema = doc[part];
    if (schema) out[part] = inline(schema);
  }
  if (doc.responses) out.responses = Object.fromEntries(Object.entries(doc.responses).map(([status, r]) => [status, { ...r, schema: inline(r.schema) }]));
  return out;
}
