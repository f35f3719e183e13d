// String and template literals of TypeScript sources, and how well a literal path matches a route's
// path: shared by the scans that keep paths and names where they belong (test/kernel/no-foreign-paths,
// test/kernel/kernel-names-no-extension).
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/** One path segment: literal text, a route's `:param`, or a literal's `${…}` (maybe inside text). */
export type Segment = { kind: 'text'; text: string } | { kind: 'param' } | { kind: 'pattern'; regex: RegExp };
export interface Route { owner: string; path: string; segments: Segment[] }
export interface Literal { segments: Segment[]; /** Open at the end: the path goes on (a prefix or a trailing `${…}`). */ open: boolean }

export const WILDCARD = '\u0000';
export const METHOD = /^(GET|POST|PUT|PATCH|DELETE) (?=\/)/;

function splitPath(path: string): string[] {
  return path.replace(/[?#].*$/s, '').split('/').slice(1);
}

export function routeSegments(path: string): Segment[] {
  return splitPath(path).map((s) => (s.startsWith(':') ? { kind: 'param' } : { kind: 'text', text: s }));
}

export function literalSegments(text: string): Segment[] {
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
export function matchScore(literal: Literal, route: Route): number {
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

export interface FoundLiteral { text: string; open: boolean; line: number }

/**
 * The string and template literals of a TypeScript source, comments skipped, each with its line; a
 * template's `${…}` becomes WILDCARD, and a literal followed by `+` is open (the path goes on). The
 * compiler of this repository (TypeScript 7) has no JavaScript API, so this is a small tokenizer: a `/`
 * starts a regular expression where an operand is expected, as in any JavaScript lexer.
 */
export function literalsOf(code: string): FoundLiteral[] {
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

export function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : tsFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

