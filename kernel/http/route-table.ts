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
  /** Its first two path segments when both are literal ("api/agents"), in lower case: its MethodIndex bucket. */
  prefix: string | undefined;
}

/** Matches remembered per method, by path: a client polling one URL matches it once. */
const MEMO_ENTRIES = 1_000;
/** Longer paths are matched every time (the memo's size stays bounded whatever callers send). */
const MEMO_PATH_CHARS = 256;

/**
 * A method's routes indexed by their first two path segments when both are literal ("api/agents"), so a
 * request tries the few routes under its own prefix instead of every route of its method (hundreds with
 * every extension installed). `loose` holds the routes a prefix cannot name (a parameter or pattern in the
 * first two segments, or fewer segments); they are in every bucket, and are all a path with an unknown
 * prefix can match. Buckets keep the table's order (most specific first).
 */
interface MethodIndex {
  byPrefix: Map<string, Entry[]>;
  loose: Entry[];
}

export class RouteTable {
  private readonly byMethod = new Map<string, Entry[]>();
  /** The few routes that take a machine key, apart: every request asks for them. */
  private machineKeyed: Entry[] = [];
  /** Built on the first match after a change. */
  private index = new Map<string, MethodIndex>();
  /** By method, then path (a key of its own per method: joining the two into one string cost more than the lookup). */
  private readonly memo = new Map<string, Map<string, RouteMatch | undefined>>();

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
      const entry: Entry = { owner, decl, key: `${decl.method} ${decl.path}`, match: match(decl.path, { decode: decodeURIComponent }), specificity: specificity(decl.path), prefix: literalPrefix(decl.path) };
      list.push(entry);
      this.byMethod.set(decl.method, list);
      if (decl.machineKey && !decl.internal) this.machineKeyed.push(entry);
    }
    // Literal segments beat parameters: /api/skill-bundles/presets before /api/skill-bundles/:id.
    for (const method of new Set(routes.map((r) => r.method))) this.byMethod.get(method)!.sort((a, b) => b.specificity - a.specificity);
    this.changed();
  }

  removeOwner(owner: string): void {
    for (const [method, list] of this.byMethod) this.byMethod.set(method, list.filter((e) => e.owner !== owner));
    this.machineKeyed = this.machineKeyed.filter((e) => e.owner !== owner);
    this.changed();
  }

  match(method: string, path: string): RouteMatch | undefined {
    const verb = method === 'HEAD' ? 'GET' : method;
    if (path.length > MEMO_PATH_CHARS) return this.find(verb, path);
    let paths = this.memo.get(verb);
    if (!paths) this.memo.set(verb, (paths = new Map()));
    let found = paths.get(path);
    if (found === undefined && !paths.has(path)) {
      found = this.find(verb, path);
      if (paths.size >= MEMO_ENTRIES) paths.clear();
      paths.set(path, found);
    }
    // Each caller gets params of its own.
    return found && { owner: found.owner, decl: found.decl, key: found.key, params: { ...found.params } };
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

  private find(method: string, path: string): RouteMatch | undefined {
    const list = this.candidates(method, path);
    if (!list) return undefined;
    for (const entry of list) {
      let result;
      try {
        result = entry.match(path);
      } catch {
        return undefined; // malformed percent-encoding: nobody serves it
      }
      // path-to-regexp's params have no prototype, and copying such an object is slow: copied once here.
      if (result) return { owner: entry.owner, decl: entry.decl, key: entry.key, params: { ...result.params } };
    }
    return undefined;
  }

  private changed(): void {
    this.index.clear();
    this.memo.clear();
  }

  /** The routes of a method that may match this path: those under its prefix and the loose ones. */
  private candidates(method: string, path: string): Entry[] | undefined {
    let index = this.index.get(method);
    if (!index) {
      const list = this.byMethod.get(method);
      if (!list) return undefined;
      index = indexOf(list);
      this.index.set(method, index);
    }
    return index.byPrefix.get(prefixOfPath(path)) ?? index.loose;
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

/** Route patterns match case-insensitively (path-to-regexp's default), so prefixes are compared in lower case. */
function prefixOfPath(path: string): string {
  const [, first = '', second = ''] = path.split('/', 3);
  return `${first}/${second}`.toLowerCase();
}

const PATTERN_SYNTAX = /[:*{}()\\?+]/;

function literalPrefix(path: string): string | undefined {
  const [empty, first, second] = path.split('/', 3);
  return empty === '' && first && second && !PATTERN_SYNTAX.test(first) && !PATTERN_SYNTAX.test(second) ? `${first}/${second}`.toLowerCase() : undefined;
}

function indexOf(list: Entry[]): MethodIndex {
  const prefixes = new Set(list.map((e) => e.prefix).filter((p): p is string => p !== undefined));
  const byPrefix = new Map([...prefixes].map((prefix) => [prefix, list.filter((e) => e.prefix === undefined || e.prefix === prefix)]));
  return { byPrefix, loose: list.filter((e) => e.prefix === undefined) };
}

function specificity(path: string): number {
  const segments = path.split('/').filter(Boolean);
  return segments.reduce((score, s) => score * 2 + (s.startsWith(':') || s.startsWith('*') ? 0 : 1), 1) * 100 + segments.length;
}
