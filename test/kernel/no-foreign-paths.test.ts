// Issue 25 §1: extensions reach each other only through the provider's contract module. No .ts file
// under extensions/ (nor the SDK in sdk/ and the libraries in lib/ they share) holds a literal path of a route that another extension
// serves, except that provider's own files (its contract.ts among them). Comments never count; a
// template literal counts with its interpolations as wildcards, and `'/api/x/' + id` as a prefix. The dashboard's browser code (extensions/dashboard/web) is a client
// of the public HTTP API, like the CLI, and is not scanned.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { readManifestDir } from '../../kernel/host/manifest-dirs.js';
import { literalSegments, literalsOf, matchScore, METHOD, routeSegments, tsFiles, WILDCARD, type Literal, type Route } from '../helpers/literals.js';

const root = join(import.meta.dirname, '..', '..');
const extensionsDir = join(root, 'extensions');
const NOT_SCANNED = [join('extensions', 'dashboard', 'web') + sep];
/**
 * Extension points: a path one extension defines and another serves. Agents' cards advertise the A2A
 * binding a2a serves for each agent (A2A_BINDING), and find it in the route table instead of calling a2a.
 */
const EXTENSION_POINTS = new Map([[join('extensions', 'agents', 'contract.ts'), new Set(['/a2a/agents/:id'])]]);

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
  const files = [extensionsDir, join(root, 'sdk'), join(root, 'lib')].flatMap(tsFiles).filter((f) => !NOT_SCANNED.some((prefix) => relative(root, f).startsWith(prefix)));
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

test("each contract names its provider's routes one way: 'METHOD /path', as plugin.toml declares them", async () => {
  const routes = await servedRoutes();
  const contracts = readdirSync(extensionsDir).filter((folder) => existsSync(join(extensionsDir, folder, 'contract.ts')));
  const wrong = contracts.flatMap((folder) => {
    const file = join('extensions', folder, 'contract.ts');
    const own = routes.filter((route) => route.owner === folder);
    return literalsOf(readFileSync(join(root, file), 'utf8'))
      .filter((literal) => /^\/[\w-]/.test(literal.text) && !EXTENSION_POINTS.get(file)?.has(literal.text))
      .filter((literal) => own.some((route) => matchScore({ segments: literalSegments(literal.text), open: literal.open }, route) > 2))
      .map((literal) => `${file}:${literal.line}: '${literal.text.replaceAll(WILDCARD, '${…}')}' is a bare path: name the route as 'METHOD /path' and call it with sdk/route-call.ts`);
  });
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
