// Issue 25 §3: the kernel knows no feature. No string or template literal in kernel/**/*.ts names an
// extension: its name as a whole string ('agents'), as "the agents extension", a name no English word
// can be (a2a, work-tasks) anywhere in a string, a path of a route an
// extension serves (read from every plugin.toml; a literal that is as much a kernel route's does not
// count), or an environment variable an extension's plugin.toml declares (secrets, settings, sandbox
// variables, machine keys). Comments and identifiers never count: "memory" or "projects" are English.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { readManifestDir } from '../../kernel/host/manifest-dirs.js';
import { KERNEL_ROUTE_DOCS } from '../../kernel/http/routes/kernel-docs.js';
import { KNOWN_CAPABILITIES } from '../../protocol/messages.js';
import { literalSegments, literalsOf, matchScore, METHOD, routeSegments, tsFiles, WILDCARD, type Route } from '../helpers/literals.js';

const root = join(import.meta.dirname, '..', '..');
const extensionsDir = join(root, 'extensions');

interface Names {
  extensions: Set<string>;
  routes: Route[];
  variables: Map<string, string>;
}

async function extensionNames(): Promise<Names> {
  const names: Names = { extensions: new Set(), routes: [], variables: new Map() };
  for (const { folder, manifest } of await readManifestDir(extensionsDir)) {
    assert.ok(!(manifest instanceof Error), `extensions/${folder}/plugin.toml: ${(manifest as Error).message}`);
    names.extensions.add(folder);
    const server = manifest.server;
    for (const route of server?.routes ?? []) {
      names.routes.push({ owner: folder, path: route.path, segments: routeSegments(route.path) });
      if (route.machineKey) names.variables.set(route.machineKey, folder);
    }
    const variables = [...(server?.secrets ?? []), ...(server?.listen ?? []).map((l) => l.variable), ...Object.values(server?.namedSettings ?? {}), ...(manifest.sandbox?.env ?? []), ...(manifest.sandbox?.envFiles ?? [])];
    for (const variable of variables) names.variables.set(variable, folder);
  }
  for (const folder of readdirSync(extensionsDir, { withFileTypes: true })) {
    if (folder.isDirectory() && !folder.name.startsWith('_')) names.extensions.add(folder.name);
  }
  return names;
}

/**
 * The kernel's own words that some extension is also named after: capabilities (`metrics`) and the
 * manifest's tables (`[sandbox]`). As a whole string they are the kernel's vocabulary, not that extension.
 */
const KERNEL_VOCABULARY = new Set<string>([
  ...KNOWN_CAPABILITIES,
  // Capabilities the kernel once had, which its migrations name when they retire them (013: `plans`).
  'plans',
  ...Object.keys((JSON.parse(readFileSync(join(root, 'schemas', 'plugin-manifest.json'), 'utf8')) as { properties: object }).properties),
]);

const kernelRoutes: Route[] = Object.keys(KERNEL_ROUTE_DOCS)
  .map((key) => key.replace(METHOD, ''))
  .filter((path) => path.startsWith('/'))
  .map((path) => ({ owner: 'kernel', path, segments: routeSegments(path) }));

/** What a literal names of an extension, or undefined. */
export function namedExtension(text: string, open: boolean, names: Names): string | undefined {
  if (names.extensions.has(text) && !KERNEL_VOCABULARY.has(text)) return `the extension name '${text}'`;
  // A name no English word can be (a2a, api-docs, work-tasks) counts wherever it stands in a string.
  for (const name of names.extensions) {
    if (/[-\d]/.test(name) && new RegExp(`(^|[^\\w-])${name}($|[^\\w-])`).test(text)) return `the extension name '${name}'`;
  }
  const phrase = /\bthe ([a-z][\w-]*) (extension|plugin)\b/.exec(text);
  if (phrase && names.extensions.has(phrase[1])) return `the ${phrase[1]} extension ('${phrase[0]}')`;
  for (const [variable, owner] of names.variables) {
    if (new RegExp(`\\b${variable}\\b`).test(text)) return `${owner}'s variable ${variable}`;
  }
  const path = text.replace(METHOD, '');
  if (!/^\/[\w-]/.test(path)) return undefined;
  const literal = { segments: literalSegments(path), open };
  const best = (routes: Route[]) => routes.reduce((top, route) => {
    const score = matchScore(literal, route);
    return score > top.score ? { score, route } : top;
  }, { score: 0, route: undefined as Route | undefined });
  const ext = best(names.routes);
  // A literal that is at least as much one of the kernel's own routes (a shared prefix) names none.
  if (ext.score > 2 && ext.route && best(kernelRoutes).score < ext.score) return `${ext.route.owner}'s route ${ext.route.path}`;
  return undefined;
}

function findings(names: Names): string[] {
  const found: string[] = [];
  for (const file of tsFiles(join(root, 'kernel'))) {
    const relativePath = relative(root, file);
    const lines = readFileSync(file, 'utf8').split('\n');
    for (const literal of literalsOf(lines.join('\n'))) {
      const named = namedExtension(literal.text, literal.open, names);
      if (!named) continue;
      found.push(`${relativePath}:${literal.line}: '${literal.text.replaceAll(WILDCARD, '${…}')}' names ${named}`);
    }
  }
  return found;
}

test('no kernel code names an extension, one of its routes or one of its variables', async () => {
  const names = await extensionNames();
  assert.ok(names.extensions.size > 30 && names.routes.length > 100 && names.variables.size > 5, 'the manifests were read');
  const named = findings(names);
  assert.deepEqual(named, [], `kernel code naming extensions:\n${named.join('\n')}`);
});

test('the scan sees each way of naming an extension, and not English or kernel routes', async () => {
  const names = await extensionNames();
  assert.match(namedExtension('agents', false, names) ?? '', /extension name 'agents'/);
  assert.match(namedExtension('the messaging extension is not loaded', false, names) ?? '', /messaging/);
  assert.match(namedExtension(`/api/agents/${WILDCARD}`, false, names) ?? '', /agents's route \/api\/agents\/:id/);
  assert.match(namedExtension('POST /api/sessions', false, names) ?? '', /sessions's route/);
  assert.match(namedExtension('ROOST_SEARCH_API_KEY is unset', false, names) ?? '', /research's variable/);
  assert.equal(namedExtension('memory', false, names) !== undefined, true, 'a whole string equal to a name is a name');
  assert.equal(namedExtension('out of memory', false, names), undefined);
  assert.match(namedExtension('sent to a2a for its card', false, names) ?? '', /'a2a'/);
  assert.equal(namedExtension('a2aish', false, names), undefined);
  assert.equal(namedExtension('metrics', false, names), undefined, 'a capability is the kernel\'s word');
  assert.equal(namedExtension('/api/plugins', false, names), undefined);
  assert.equal(namedExtension('/api/tenants/register', false, names), undefined);
  assert.equal(namedExtension('/api/', true, names), undefined);
});
