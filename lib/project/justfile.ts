// The public recipes and aliases of a justfile, in the order the file gives them. With `just` installed,
// just itself says (`--dump --dump-format json`); without it, the file is read the way just reads it:
// a recipe header is a name, parameters (defaults may hold `=`, quotes and backticks; `+` and `*` mark
// variadic ones) and a colon outside quotes not followed by `=`; recipes whose name starts with `_` or
// that carry a `[private]` attribute are private; `alias name := recipe` names a recipe a second time.
import { execFileSync } from 'node:child_process';
import { findExecutable } from '../bwrap.js';

/** Names `just <name>` runs, recipes first, then aliases of public recipes. */
export function justfileTasks(root: string, marker: string, text: string): string[] {
  return (findExecutable('just') ? fromJust(root, marker, text) : undefined) ?? parseJustfile(text);
}

interface Dump {
  recipes: Record<string, { private: boolean }>;
  aliases: Record<string, { target: string; attributes: unknown[] }>;
}

/** What `just --dump` says, or undefined when it cannot say (a justfile it refuses, an old just). */
function fromJust(root: string, marker: string, text: string): string[] | undefined {
  let dump: Dump;
  try {
    const json = execFileSync('just', ['--justfile', marker, '--working-directory', root, '--dump', '--dump-format', 'json'], { cwd: root, encoding: 'utf8', timeout: 10_000, stdio: ['ignore', 'pipe', 'ignore'] });
    dump = JSON.parse(json) as Dump;
  } catch {
    return undefined;
  }
  const recipes = Object.entries(dump.recipes ?? {}).filter(([, r]) => !r.private).map(([name]) => name);
  const aliases = Object.entries(dump.aliases ?? {}).filter(([name, a]) => recipes.includes(a.target) && !isPrivateName(name) && !a.attributes.includes('private')).map(([name]) => name);
  // The dump sorts by name; the file's own order is the one a person wrote.
  const at = (name: string) => text.search(new RegExp(`^(?:alias\\s+)?@?${name.replace(/[-]/g, '\\-')}\\b`, 'm'));
  return [...recipes.sort((a, b) => at(a) - at(b)), ...aliases.sort((a, b) => at(a) - at(b))];
}

const KEYWORDS = new Set(['set', 'alias', 'export', 'import', 'mod', 'unexport']);

export function parseJustfile(text: string): string[] {
  const recipes: string[] = [];
  const aliases: Array<[string, string, boolean]> = [];
  let privateNext = false;
  for (const line of text.split('\n')) {
    if (/^\[/.test(line)) {
      // Attributes stand on lines of their own before a recipe: [private], [group('ci')], [private, no-cd].
      if (/\bprivate\b/.test(line.replace(/(['"]).*?\1/g, ''))) privateNext = true;
      continue;
    }
    if (!/^[@A-Za-z_]/.test(line)) continue; // bodies are indented; comments and blank lines say nothing
    const alias = /^alias\s+([A-Za-z_][A-Za-z0-9_-]*)\s*:=\s*([A-Za-z_][A-Za-z0-9_-]*)/.exec(line);
    if (alias) {
      aliases.push([alias[1]!, alias[2]!, privateNext]);
      privateNext = false;
      continue;
    }
    const name = recipeName(line);
    if (name && !privateNext && !isPrivateName(name)) recipes.push(name);
    privateNext = false;
  }
  const visible = aliases.filter(([name, target, hidden]) => !hidden && !isPrivateName(name) && recipes.includes(target)).map(([name]) => name);
  return [...new Set([...recipes, ...visible])];
}

const isPrivateName = (name: string) => name.startsWith('_');

/** The recipe a header line names, or undefined for an assignment, a setting or anything else. */
function recipeName(line: string): string | undefined {
  const head = /^@?([A-Za-z_][A-Za-z0-9_-]*)/.exec(line);
  if (!head || KEYWORDS.has(head[1]!)) return undefined;
  let quote: string | undefined;
  for (let i = head[0].length; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
      continue;
    }
    if (c === '"' || c === "'" || c === '`') quote = c;
    else if (c === '#') return undefined;
    else if (c === ':') return line[i + 1] === '=' ? undefined : head[1];
  }
  return undefined;
}
