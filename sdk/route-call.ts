// The base of every provider's contract module (extensions/<provider>/contract.ts): a route is named
// once, exactly as its plugin.toml declares it ("METHOD /path/:param"), and turned into a call here.
// Callers import the provider's contract instead of writing URL strings (test/kernel/no-foreign-paths).
import { RoostError } from '../protocol/errors.js';
import type { CallAs, HostClient } from './host-client.js';

export type Route = `${'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'} /${string}`;

export type Query = Record<string, string | number | boolean | null | undefined>;

export interface RouteRequest {
  /** A value for each `:param` of the route's path (a missing one throws). */
  params?: Record<string, string>;
  /** Left out when undefined or null. */
  query?: Query;
  body?: unknown;
  /** Stops waiting for the answer (CANCELLED) the moment it aborts. */
  signal?: AbortSignal;
}

/** The method and the path of `route` with its params filled in (each encoded) and its query. */
export function routePath(route: Route, params?: Record<string, string>, query?: Query): { method: string; path: string } {
  const space = route.indexOf(' ');
  const values = params ?? {};
  const path = route.slice(space + 1).replace(/:([A-Za-z_]\w*)/g, (_, name: string) => {
    if (values[name] === undefined) throw new RoostError('INTERNAL', `route ${route}: no value for :${name}`);
    return encodeURIComponent(values[name]);
  });
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) if (value !== undefined && value !== null) search.set(key, String(value));
  const qs = search.toString();
  return { method: route.slice(0, space), path: qs ? `${path}?${qs}` : path };
}

/** Calls a route of another extension through the host (`HostClient.call`). */
export function callRoute<T = unknown>(host: HostClient, route: Route, request: RouteRequest, as: CallAs): Promise<{ status: number; body: T }> {
  const { method, path } = routePath(route, request.params, request.query);
  return host.call<T>(method, path, request.body, as, request.signal);
}
