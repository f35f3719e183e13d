// The routes extensions declared, matched by method and path. One table serves HTTP requests and the
// `call` messages extensions send each other, so both go through the same matching and auth rules.
import { match, type MatchFunction } from 'path-to-regexp';
import { conflict } from '../../protocol/errors.js';
import type { RouteDecl } from '../host/manifest.js';
import { MUTATING_METHODS } from './methods.js';

export interface RouteMatch {
  owner: string;
  decl: RouteDecl;
  /** "GET /api/projects/:id", the key the extension's handler is registered under. */
  key: string;
  params: Record<string, string>;
}

interface Entry {
  owner: string;
  decl: RouteDecl;
  key: string;
  match: MatchFunction<Record<string, string>>;
  specificity: number;
}

export class RouteTable {
  private readonly byMethod = new Map<string, Entry[]>();
  /** The few routes that take a machine key, apart: every request asks for them. */
  private machineKeyed: Entry[] = [];

  /** Adds every route of an owner, or none if one of them is already served by someone else. */
  addAll(owner: string, routes: RouteDecl[], reserved: (method: string, path: string) => boolean): void {
    for (const decl of routes) {
      const clash = this.findExact(decl.method, decl.path);
      if ((clash && clash.owner !== owner) || reserved(decl.method, decl.path)) {
        throw conflict(`${owner} declares ${decl.method} ${decl.path}, which ${clash ? clash.owner : 'the kernel'} already serves`);
      }
      // A machine key is an identity at its route's path: no kernel route may be reached with it.
      if (decl.machineKey && ['GET', ...MUTATING_METHODS].some((method) => reserved(method, decl.path))) {
        throw conflict(`${owner} declares ${decl.path} with a machine key, and the kernel serves that path`);
      }
    }
    this.removeOwner(owner);
    for (const decl of routes) {
      const list = this.byMethod.get(decl.method) ?? [];
      const entry: Entry = { owner, decl, key: `${decl.method} ${decl.path}`, match: match(decl.path, { decode: decodeURIComponent }), specificity: specificity(decl.path) };
      list.push(entry);
      this.byMethod.set(decl.method, list);
      if (decl.machineKey && !decl.internal) this.machineKeyed.push(entry);
    }
    // Literal segments beat parameters: /api/skill-bundles/presets before /api/skill-bundles/:id.
    for (const method of new Set(routes.map((r) => r.method))) this.byMethod.get(method)!.sort((a, b) => b.specificity - a.specificity);
  }

  removeOwner(owner: string): void {
    for (const [method, list] of this.byMethod) this.byMethod.set(method, list.filter((e) => e.owner !== owner));
    this.machineKeyed = this.machineKeyed.filter((e) => e.owner !== owner);
  }

  match(method: string, path: string): RouteMatch | undefined {
    const list = this.byMethod.get(method === 'HEAD' ? 'GET' : method);
    if (!list) return undefined;
    for (const entry of list) {
      let result;
      try {
        result = entry.match(path);
      } catch {
        return undefined; // malformed percent-encoding: nobody serves it
      }
      if (result) return { owner: entry.owner, decl: entry.decl, key: entry.key, params: { ...result.params } };
    }
    return undefined;
  }

  /** The methods whose public routes match this path (for 405 and Allow). */
  methodsFor(path: string): string[] {
    const methods: string[] = [];
    for (const [method, list] of this.byMethod) {
      if (list.some((entry) => !entry.decl.internal && matches(entry, path))) methods.push(method);
    }
    return methods;
  }

  /** The machine key (an environment variable's name) a route at this path takes, whatever its method. */
  machineKeyFor(path: string): string | undefined {
    return this.machineKeyed.find((e) => matches(e, path))?.decl.machineKey;
  }

  /** Every route with its owner, internal ones included (for the OpenAPI document, which leaves those out). */
  all(): Array<{ owner: string; decl: RouteDecl }> {
    return [...this.byMethod.values()].flatMap((list) => list.map(({ owner, decl }) => ({ owner, decl })));
  }

  routesOf(owner: string): string[] {
    const out: string[] = [];
    for (const list of this.byMethod.values()) for (const e of list) if (e.owner === owner) out.push(e.key);
    return out.sort();
  }

  private findExact(method: string, path: string): Entry | undefined {
    return this.byMethod.get(method)?.find((e) => e.decl.path === path);
  }
}

function matches(entry: Entry, path: string): boolean {
  try {
    return entry.match(path) !== false;
  } catch {
    return false;
  }
}

function specificity(path: string): number {
  const segments = path.split('/').filter(Boolean);
  return segments.reduce((score, s) => score * 2 + (s.startsWith(':') || s.startsWith('*') ? 0 : 1), 1) * 100 + segments.length;
}
