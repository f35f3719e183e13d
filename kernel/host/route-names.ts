// Each route of an extension is named three times: in plugin.toml's routes, in its [server.openapi]
// entry and as the key of its handler. These say where the three disagree. An [server.openapi] entry
// for no route is refused when the manifest is read (manifest.ts).
import type { Manifest } from './manifest.js';

/**
 * Why the handlers an extension named in `ready` do not match the routes its manifest declares, or
 * undefined when they do (or when it named none: a frame that does not say is not checked).
 */
export function handlerMismatch(manifest: Manifest, handlers: string[] | undefined): string | undefined {
  if (!handlers) return undefined;
  const declared = new Set((manifest.server?.routes ?? []).map((route) => `${route.method} ${route.path}`));
  const handled = new Set(handlers);
  const unhandled = [...declared].filter((key) => !handled.has(key));
  const undeclared = [...handled].filter((key) => !declared.has(key));
  if (unhandled.length + undeclared.length === 0) return undefined;
  const parts = [
    ...(unhandled.length > 0 ? [`plugin.toml declares ${unhandled.join(', ')} but it has no handler for ${unhandled.length === 1 ? 'it' : 'them'}`] : []),
    ...(undeclared.length > 0 ? [`it has a handler for ${undeclared.join(', ')}, which plugin.toml does not declare`] : []),
  ];
  return `routes disagree: ${parts.join('; ')}`;
}

/** The routes a client can reach that have no [server.openapi] entry (the document shows them undescribed). */
export function undocumentedRoutes(manifest: Manifest): string[] {
  return (manifest.server?.routes ?? []).filter((route) => !route.internal && !route.doc).map((route) => `${route.method} ${route.path}`);
}
