// plugin.toml on its own: what the manifest rules accept and normalise (capabilities, fledge's filesystem
// scope, sandbox grants, routes and their defaults, schema files inlined), and what they refuse with a
// sentence naming the problem. Every bundled extension's manifest parses under the same rules.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { assertServerProtocol, parseManifest } from '../../kernel/host/manifest.js';
import { DEFAULT_EXTENSION_TIMEOUT_MS } from '../../kernel/host/manifest-server.js';
import { readManifestDir } from '../../kernel/host/manifest-dirs.js';

const refusedWith = (pattern: RegExp) => (err: Error & { code?: string }) => err.code === 'VALIDATION_ERROR' && pattern.test(err.message);

describe('plugin.toml rules', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'roost-unit-manifest-'));
    await mkdir(join(dir, 'schemas'));
    await writeFile(join(dir, 'schemas', 'record.json'), JSON.stringify({ type: 'object', properties: { id: { $ref: '#/$defs/id' } }, $defs: { id: { type: 'string' } } }));
    await writeFile(join(dir, 'schemas', 'response.json'), JSON.stringify({ type: 'object', properties: { items: { type: 'array', items: { $ref: 'record.json' } } } }));
    await writeFile(join(dir, 'schemas', 'loop-a.json'), JSON.stringify({ $ref: 'loop-b.json' }));
    await writeFile(join(dir, 'schemas', 'loop-b.json'), JSON.stringify({ $ref: 'loop-a.json' }));
    await writeFile(join(dir, 'schemas', 'escape.json'), JSON.stringify({ $ref: '../../outside.json' }));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('normalises a server extension: defaults, string and table routes, schema files inlined', async () => {
    const m = await parseManifest(`
[plugin]
name = "things"
version = "1.2.3"
protocol = "cli-v1"

[capabilities]
db = true
network = false

[server]
main = "main.ts"
routes = ["GET /api/things", { method = "POST", path = "/hooks/things", public = true, raw = true }]

[server.openapi."GET /api/things"]
summary = "Every thing"
response = "schemas/response.json"
`, dir);
    assertServerProtocol(m);
    assert.equal(m.protocol, 'cli-v1');
    assert.equal(m.description, '');
    assert.deepEqual(m.capabilities, { db: true, network: false });
    assert.equal(m.server?.activation, 'lazy');
    assert.equal(m.server?.timeoutMs, DEFAULT_EXTENSION_TIMEOUT_MS);
    assert.deepEqual(m.server?.routes.map(({ doc: _doc, ...route }) => route), [
      { method: 'GET', path: '/api/things', public: false, raw: false, internal: false },
      { method: 'POST', path: '/hooks/things', public: true, raw: true, internal: false },
    ]);
    // The record file is inlined where it is referred to, its own #/$defs resolved, no $defs left over.
    assert.deepEqual(m.server?.routes[0]?.doc, {
      summary: 'Every thing',
      response: { type: 'object', properties: { items: { type: 'array', items: { type: 'object', properties: { id: { type: 'string' } } } } } },
    });
  });

  it('takes fledge\'s filesystem scope and a CLI plugin\'s sandbox grants, sorted', async () => {
    const scoped = await parseManifest('[plugin]\nname = "fmt"\nversion = "1"\nprotocol = "fledge-v1"\n[capabilities]\nfilesystem = "plugin"\nexec = true\n[sandbox]\nenv = ["ZED", "ALPHA"]\n[[commands]]\nname = "fmt"\nbinary = "bin/fmt"\n', dir);
    assert.deepEqual(scoped.capabilities, { filesystem: true, exec: true });
    assert.equal(scoped.filesystemScope, 'plugin');
    assert.deepEqual(scoped.sandbox, { env: ['ALPHA', 'ZED'], envFiles: [], sockets: [] });
    assert.deepEqual(scoped.commands, [{ name: 'fmt', description: '', binary: 'bin/fmt' }]);
    assert.throws(() => assertServerProtocol(scoped), refusedWith(/server extensions speak "cli-v1"/));

    const plain = await parseManifest('[plugin]\nname = "p"\nversion = "1"\n[capabilities]\nfilesystem = true\n', dir);
    assert.equal(plain.protocol, 'plain');
    assert.equal(plain.filesystemScope, 'project', 'a plain true means the project');
    assert.equal(plain.sandbox, undefined);
    const none = await parseManifest('[plugin]\nname = "p"\nversion = "1"\n[capabilities]\nfilesystem = "none"\n', dir);
    assert.deepEqual(none.capabilities, { filesystem: false });
    assert.equal(none.filesystemScope, undefined);
  });

  it('refuses what it cannot run, naming why', async () => {
    const head = '[plugin]\nname = "bad"\nversion = "1"\n';
    const refusals: Array<[string, RegExp]> = [
      ['[plugin\nname = 1', /is not valid TOML/],
      ['[plugin]\nversion = "1"\n', /name/],
      ['[plugin]\nname = "Bad Name"\nversion = "1"\n', /name/],
      ['[plugin]\nname = "bad"\nversion = "1"\nprotocol = "cli-v9"\n', /speaks protocol "cli-v9"; this host speaks "cli-v1"/],
      ['[plugin]\nname = "bad"\nversion = "1"\nruntime = "wasm"\n', /needs the "wasm" runtime/],
      [`${head}[capabilities]\nroot = true\n`, /capabilities/],
      [`${head}[build]\ncommand = "make"\n[hooks]\nbuild = "make"\n`, /names a build command twice/],
      [`${head}[server]\nmain = "m.ts"\nroutes = ["GET /a"]\n[server.openapi."GET /b"]\nsummary = "x"\n`, /names "GET \/b", which is not among \[server\] routes/],
      [`${head}[server]\nmain = "m.ts"\nroutes = ["GET /a"]\n[server.openapi."GET /a"]\nresponse = "schemas/loop-a.json"\n`, /go round in a circle/],
      [`${head}[server]\nmain = "m.ts"\nroutes = ["GET /a"]\n[server.openapi."GET /a"]\nresponse = "schemas/escape.json"\n`, /leaves the extension's folder/],
      [`${head}[server]\nmain = "m.ts"\nroutes = ["GET /a"]\n[server.openapi."GET /a"]\nresponse = "schemas/missing.json"\n`, /cannot be read/],
      [`${head}[server]\nmain = "m.ts"\nroutes = ["GET /a"]\n[server.openapi."GET /a"]\ncontent_type = "text/csv"\nresponse = "schemas/record.json"\n`, /either a JSON body \(response\) or another content_type/],
    ];
    for (const [text, pattern] of refusals) await assert.rejects(parseManifest(text, dir), refusedWith(pattern), text);
  });

  it('takes a subscribe_when filter for a subscribed pattern, and refuses one for a pattern not subscribed to', async () => {
    const head = `[plugin]\nname = "things"\nversion = "1.0.0"\nprotocol = "cli-v1"\n\n[server]\nmain = "main.ts"\nsubscribe = ["agent.*"]\n`;
    const m = await parseManifest(`${head}subscribe_when = { "agent.*" = { action = ["deleted"] } }\n`, dir);
    assert.deepEqual(m.server?.subscribeWhen, { 'agent.*': { action: ['deleted'] } });
    assert.deepEqual((await parseManifest(head, dir)).server?.subscribeWhen, {});
    await assert.rejects(parseManifest(`${head}subscribe_when = { "project.*" = { action = ["deleted"] } }\n`, dir), refusedWith(/filters "project\.\*" in \[server\.subscribe_when\], a pattern it does not subscribe to/));
    await assert.rejects(parseManifest(`${head}subscribe_when = { "agent.*" = { action = "deleted" } }\n`, dir), (err: Error & { code?: string }) => err.code === 'VALIDATION_ERROR');
  });

  it('takes an empty answer for an internal GET route of an extension that stores, and refuses one for any other route or without db', async () => {
    const manifest = (db: boolean, answers: string) => `[plugin]\nname = "things"\nversion = "1.0.0"\nprotocol = "cli-v1"\n\n[capabilities]\ndb = ${db}\n\n[server]\nmain = "main.ts"\nroutes = ["GET /api/things", { method = "GET", path = "/api/internal/things/:id", internal = true }]\n\n[server.empty_answers]\n${answers}\n`;
    const m = await parseManifest(manifest(true, '"GET /api/internal/things/:id" = { things = [] }'), dir);
    assert.deepEqual(m.server?.routes.map((r) => JSON.stringify(r.emptyAnswer)), [undefined, '{"things":[]}']);
    await assert.rejects(parseManifest(manifest(false, '"GET /api/internal/things/:id" = { things = [] }'), dir), refusedWith(/\[server\.empty_answers\] needs the db capability/));
    await assert.rejects(parseManifest(manifest(true, '"GET /api/internal/others" = { things = [] }'), dir), refusedWith(/names "GET \/api\/internal\/others", which is not among its internal GET routes/));
    await assert.rejects(parseManifest(manifest(true, '"GET /api/things" = { things = [] }'), dir), (err: Error & { code?: string }) => err.code === 'VALIDATION_ERROR');
  });

  it('reads every bundled extension\'s manifest under these rules', async () => {
    const found = await readManifestDir(join(process.cwd(), 'extensions'));
    assert.ok(found.length > 20, `${found.length} extensions`);
    for (const { folder, manifest } of found) {
      assert.ok(!(manifest instanceof Error), `${folder}: ${manifest instanceof Error ? manifest.message : ''}`);
      assert.equal(manifest.name, folder);
      assert.ok(manifest.server, folder);
    }
  });
});
