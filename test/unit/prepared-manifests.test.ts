// The manifests the build prepares (dist/manifests.json): each is what reading its folder gives, and one
// is used only while every file it was read from is unchanged.
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { packageRoot } from '../../lib/paths.js';
import { readManifest } from '../../kernel/host/manifest.js';
import { preparedManifest, toPrepared, type PreparedFile } from '../../kernel/host/prepared-manifests.js';

/** JSON has no undefined: a prepared manifest lacks the keys read as undefined, which no reader tells apart. */
const asJson = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown;

describe('prepared manifests', () => {
  let home: string;
  let dir: string;
  before(async () => {
    // Under the package root, as the in-tree extensions are: prepared entries are named relative to it.
    await mkdir(join(packageRoot, 'test-artifacts'), { recursive: true });
    home = await mkdtemp(join(packageRoot, 'test-artifacts', 'prepared-'));
    dir = join(home, 'things');
    await mkdir(join(dir, 'schemas'), { recursive: true });
    await writeFile(join(dir, 'schemas', 'record.json'), JSON.stringify({ type: 'object', properties: { id: { type: 'string' } } }));
    await writeFile(join(dir, 'schemas', 'list.json'), JSON.stringify({ type: 'array', items: { $ref: 'record.json' } }));
    await writeFile(join(dir, 'plugin.toml'), `
[plugin]
name = "things"
version = "1.0.0"
protocol = "cli-v1"

[server]
main = "main.ts"
routes = ["GET /api/things"]

[server.openapi."GET /api/things"]
response = "schemas/list.json"
`);
  });
  after(() => rm(home, { recursive: true, force: true }));

  const prepare = async (): Promise<PreparedFile> => {
    const sources = new Set<string>();
    const manifest = await readManifest(dir, sources);
    return { [dir.slice(packageRoot.length + 1)]: toPrepared(manifest, sources) };
  };

  it('names every file the manifest was read from, the schema files a schema refers to among them', async () => {
    const entry = Object.values(await prepare())[0]!;
    assert.deepEqual(entry.sources.map(([path]) => path.split('/').slice(-2).join('/')), ['things/plugin.toml', 'schemas/list.json', 'schemas/record.json']);
  });

  it('gives the manifest as read, in a new object each time', async () => {
    const file = await prepare();
    const first = preparedManifest(dir, file);
    assert.deepEqual(first, asJson(await readManifest(dir, new Set())));
    assert.equal(first?.dir, dir);
    assert.notEqual(preparedManifest(dir, file), first);
  });

  it('is not used once a file it was read from changes, is touched or is gone', async () => {
    let file = await prepare();
    await writeFile(join(dir, 'schemas', 'record.json'), JSON.stringify({ type: 'object', properties: { id: { type: 'integer' } } }));
    assert.equal(preparedManifest(dir, file), undefined, 'a schema a schema refers to was edited');
    file = await prepare();
    const later = new Date(Date.now() + 5_000);
    await utimes(join(dir, 'plugin.toml'), later, later);
    assert.equal(preparedManifest(dir, file), undefined, 'plugin.toml was touched');
    file = await prepare();
    await rm(join(dir, 'schemas', 'list.json'));
    assert.equal(preparedManifest(dir, file), undefined, 'a schema file is gone');
    assert.equal(preparedManifest(join(home, 'elsewhere'), file), undefined, 'a folder never prepared');
  });

  it('holds every in-tree manifest as reading it gives (the build wrote dist/manifests.json)', async () => {
    for (const folder of ['extensions', 'plugins']) {
      for (const name of readdirSync(join(packageRoot, folder))) {
        const extension = join(packageRoot, folder, name);
        if (name.startsWith('_') || !existsSync(join(extension, 'plugin.toml'))) continue;
        const prepared = preparedManifest(extension);
        assert.ok(prepared, `${folder}/${name} is prepared`);
        assert.deepEqual(prepared, asJson(await readManifest(extension, new Set())), `${folder}/${name}`);
      }
    }
  });
});
