// Issue 25 §1: extensions reach each other only through the provider's contract module. No .ts file
// under extensions/ (nor extensions/_shared) holds a literal path of a route that another extension
// serves, except that provider's own files (its contract.ts among them). Comments never count; a
// template literal counts with its interpolations as wildcards, and `'/api/x/' + id` as a prefix. The dashboard's browser code (extensions/dashboard/web) is a client
// of the public HTTP API, like the CLI, and is not scanned.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { readManifestDir } from '../../kernel/host/manifest.js';

const root = join(import.meta.dirname, '..', '..');
const extensionsDir = join(root, 'extensions');
const NOT_SCANNED = [join('extensions', 'dashboard', 'web') + sep];
/**
 * Extension points: a path one extension defines and another serves. Agents' cards advertise the A2A
 * binding a2a serves for each agent (A2A_BINDING), and find it in the route table instead of calling a2a.
 */
const EXTENSION_POINTS = new Map([[join('extensions', 'agents', 'contract.ts'), new Set(['/a2a/agents/:id'])]]);

/** One path segment: literal text, a route's `:param`, or a literal's `${…}` (maybe inside text). */
type Segment = { kind: 'text'; text: string } | { kind: 'param' } | { kind: 'pattern'; regex: RegExp };
interface Route { owner: string; path: string; segments: Segment[] }
interface Literal { segments: Segment[]; /** Open at the end: the path goes on (a prefix or a trailing `${…}`). */ open: boolean }

const WILDCARD = '\u0000';
const METHOD = /^(GET|POST|PUT|PATCH|DELETE) (?=\/)/;

function splitPath(path: string): string[] {
  return path.replace(/[?#].*$/s, '').split('/').slice(1);
}

function routeSegments(path: string): Segment[] {
  return splitPath(path).map((s) => (s.startsWith(':') ? { kind: 'param' } : { kind: 'text', text: s }));
}

function literalSegments(text: string): Segment[] {
  return splitPath(text).map((s) => {
    if (!s.includes(WILDCARD)) return { kind: 'text', text: s };
    if (s === WILDCARD) return { kind: 'param' };
    const source = s.split(WILDCARD).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[^/]*');
    return { kind: 'pattern', regex: new RegExp(`^${source}$`) };
  });
}

/** How well a literal segment matches a route segment: 2 text = text, 1 through a wildcard, 0 not. */
function segmentScore(literal: Segment, route: Segment): number {
  if (literal.kind === 'text' && route.kind === 'text') return literal.text === route.text ? 2 : 0;
  if (literal.kind === 'pattern' && route.kind === 'text') return literal.regex.test(route.text) ? 1 : 0;
  return 1;
}

/** The score of a literal against a route (higher is more specific), or 0 when it cannot be that route. */
function matchScore(literal: Literal, route: Route): number {
  const segments = [...literal.segments];
  // `/api/x/` + id: the empty last segment says a further segment follows.
  const last = segments.at(-1);
  const trailingSlash = segments.length > 1 && last?.kind === 'text' && last.text === '';
  if (trailingSlash) segments.pop();
  if (segments.length > route.segments.length) return 0;
  if (trailingSlash && segments.length === route.segments.length) return 0;
  if (!literal.open && !trailingSlash && segments.length !== route.segments.length) return 0;
  let score = 0;
  for (let i = 0; i < segments.length; i++) {
    const s = segmentScore(segments[i], route.segments[i]);
    if (s === 0) return 0;
    score += s;
  }
  // A whole path beats a prefix of a longer one.
  return segments.length === route.segments.length ? score + 1 : score;
}

interface FoundLiteral { text: string; open: boolean; line: number }

/**
 * The string and template literals of a TypeScript source, comments skipped, each with its line; a
 * template's `${…}` becomes WILDCARD, and a literal followed by `+` is open (the path goes on). The
 * compiler of this repository (TypeScript 7) has no JavaScript API, so this is a small tokenizer: a `/`
 * starts a regular expression where an operand is expected, as in any JavaScript lexer.
 */
function literalsOf(code: string): FoundLiteral[] {
  const found: FoundLiteral[] = [];
  let i = 0;
  let line = 1;
  let operandExpected = true;
  const lineAt = (): number => line;
  const advance = (): string => {
    const c = code[i++];
    if (c === '\n') line++;
    return c;
  };
  const followedByPlus = (): boolean => /^\s*\+(?!\+)/.test(code.slice(i, i + 40));
  function quoted(quote: string): void {
    const startLine = lineAt();
    let text = '';
    advance();
    while (i < code.length && code[i] !== quote && code[i] !== '\n') {
      if (code[i] === '\\') { advance(); text += advance(); } else text += advance();
    }
    advance();
    found.push({ text, open: followedByPlus(), line: startLine });
  }
  function template(): void {
    const startLine = lineAt();
    let text = '';
    let endsWithWildcard = false;
    advance();
    while (i < code.length && code[i] !== '`') {
      if (code[i] === '\\') { advance(); text += advance(); endsWithWildcard = false; continue; }
      if (code[i] === '$' && code[i + 1] === '{') {
        advance(); advance();
        tokens('}');
        advance();
        text += WILDCARD;
        endsWithWildcard = true;
        continue;
      }
      text += advance();
      endsWithWildcard = false;
    }
    advance();
    found.push({ text, open: endsWithWildcard || followedByPlus(), line: startLine });
  }
  /** Reads code until an unmatched `close` (or the end). */
  function tokens(close: string | null): void {
    let depth = 0;
    while (i < code.length) {
      const c = code[i];
      if (c === close && depth === 0) return;
      if (c === '/' && code[i + 1] === '/') { while (i < code.length && code[i] !== '\n') advance(); continue; }
      if (c === '/' && code[i + 1] === '*') { advance(); advance(); while (i < code.length && !(code[i] === '*' && code[i + 1] === '/')) advance(); advance(); advance(); continue; }
      if (c === "'" || c === '"') { quoted(c); operandExpected = false; continue; }
      if (c === '`') { template(); operandExpected = false; continue; }
      if (c === '/' && operandExpected) {
        advance();
        let inClass = false;
        while (i < code.length && code[i] !== '\n' && (inClass || code[i] !== '/')) {
          if (code[i] === '\\') advance();
          else if (code[i] === '[') inClass = true;
          else if (code[i] === ']') inClass = false;
          advance();
        }
        advance();
        operandExpected = false;
        continue;
      }
      if (/\s/.test(c)) { advance(); continue; }
      if (/[\w$]/.test(c)) {
        let word = '';
        while (i < code.length && /[\w$]/.test(code[i])) word += advance();
        // After a keyword such as `return` or `typeof` an operand comes; after a name or number, an operator.
        operandExpected = /^(return|typeof|instanceof|in|of|new|delete|void|throw|case|do|else|yield|await)$/.test(word);
        continue;
      }
      if (c === '{' || c === '(' || c === '[') depth++;
      if (c === '}' || c === ')' || c === ']') depth--;
      operandExpected = !(c === ')' || c === ']' || c === '}');
      advance();
    }
  }
  tokens(null);
  return found;
}

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : tsFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

async function servedRoutes(): Promise<Route[]> {
  const routes: Route[] = [];
  for (const { folder, manifest } of await readManifestDir(extensionsDir)) {
    assert.ok(!(manifest instanceof Error), `extensions/${folder}/plugin.toml: ${(manifest as Error).message}`);
    for (const route of manifest.server?.routes ?? []) routes.push({ owner: folder, path: route.path, segments: routeSegments(route.path) });
  }
  return routes;
}

/** Each literal path in the file that names another extension's route: `file:line: literal is owner's route`. */
function foreignPaths(file: string, routes: Route[]): string[] {
  const relativePath = relative(root, file);
  const ownFolder = relativePath.split(sep)[1];
  const findings: string[] = [];
  for (const literal of literalsOf(readFileSync(file, 'utf8'))) {
    const text = literal.text.replace(METHOD, ''); // 'GET /api/x/:id' names a route as a manifest does
    if (!/^\/[\w-]/.test(text)) continue; // a path starts with a named segment
    if (EXTENSION_POINTS.get(relativePath)?.has(text)) continue;
    const parsed: Literal = { segments: literalSegments(text), open: literal.open };
    let best = 0;
    let owners: Route[] = [];
    for (const route of routes) {
      const score = matchScore(parsed, route);
      if (score > best) [best, owners] = [score, [route]];
      else if (score === best && score > 0) owners.push(route);
    }
    // Only a literal that can be no one's but one other extension's route counts: a prefix several
    // providers share, or one that may be this extension's own route, is not a foreign path.
    const ownerNames = new Set(owners.map((r) => r.owner));
    if (best > 2 && ownerNames.size === 1 && !ownerNames.has(ownFolder)) {
      const shown = text.replaceAll(WILDCARD, '${…}');
      findings.push(`${relativePath}:${literal.line}: '${shown}' is ${owners[0].owner}'s ${owners[0].path} (use extensions/${owners[0].owner}/contract.ts)`);
    }
  }
  return findings;
}

test('no extension holds a literal path of a route another extension serves', async () => {
  const routes = await servedRoutes();
  assert.ok(routes.length > 100, 'the manifests were read');
  const files = tsFiles(extensionsDir).filter((f) => !NOT_SCANNED.some((prefix) => relative(root, f).startsWith(prefix)));
  const findings = files.flatMap((file) => foreignPaths(file, routes));
  assert.deepEqual(findings, [], `literal paths of other extensions' routes:\n${findings.join('\n')}`);
});

test("each contract names only routes its provider's manifest declares", async () => {
  const declared = new Map<string, Set<string>>();
  for (const { folder, manifest } of await readManifestDir(extensionsDir)) {
    if (!(manifest instanceof Error)) declared.set(folder, new Set((manifest.server?.routes ?? []).map((r) => `${r.method} ${r.path}`)));
  }
  const contracts = readdirSync(extensionsDir).filter((folder) => existsSync(join(extensionsDir, folder, 'contract.ts')));
  assert.ok(contracts.length > 5, 'the contracts were found');
  const wrong = contracts.flatMap((folder) => literalsOf(readFileSync(join(extensionsDir, folder, 'contract.ts'), 'utf8'))
    .filter((literal) => METHOD.test(literal.text) && !declared.get(folder)?.has(literal.text))
    .map((literal) => `extensions/${folder}/contract.ts:${literal.line}: ${literal.text} is not a route of ${folder}'s plugin.toml`));
  assert.deepEqual(wrong, []);
});

test('the matcher tells whole paths, prefixes and shared prefixes apart', () => {
  const routes: Route[] = [
    { owner: 'credits', path: '/api/agents/:id/balance', segments: routeSegments('/api/agents/:id/balance') },
    { owner: 'agents', path: '/api/agents/:id', segments: routeSegments('/api/agents/:id') },
    { owner: 'agents', path: '/api/agents/:id/messages', segments: routeSegments('/api/agents/:id/messages') },
  ];
  const owner = (text: string, open = false): string[] => {
    const literal = { segments: literalSegments(text), open };
    const scores = routes.map((r) => matchScore(literal, r));
    const best = Math.max(...scores);
    return best === 0 ? [] : [...new Set(routes.filter((_, i) => scores[i] === best).map((r) => r.owner))];
  };
  assert.deepEqual(owner(`/api/agents/${WILDCARD}/balance`), ['credits']);
  assert.deepEqual(owner(`/api/agents/${WILDCARD}/balance?at=now`), ['credits']);
  assert.deepEqual(owner(`/api/agents/${WILDCARD}`), ['agents']);
  assert.deepEqual(owner('/api/agents/'), ['credits', 'agents'], 'a prefix both serve belongs to neither');
  assert.deepEqual(owner('/api/agents/x/balance/more'), []);
  assert.deepEqual(owner(`/api/agents/${WILDCARD}`, true), ['agents'], 'an open template is first its own whole path');
});
