import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';

describe('activity feed', () => {
  let server: TestServer;
  let dir: string;
  let other: string;
  before(async () => {
    server = await startTestServer();
    dir = await mkdtemp(join(tmpdir(), 'roost-feed-'));
    other = (await server.api('POST', '/api/tenants/register', { body: { org: 'other' } })).body.apiKey;
  });
  after(() => server.cleanup());

  it('records project activity newest first, per tenant, with paging and filters', async () => {
    const p = (await server.api('POST', '/api/projects', { body: { name: 'feedy', workingDir: dir } })).body;
    await server.api('PUT', `/api/projects/${p.id}`, { body: { name: 'feedy2' } });
    const history = await waitFor('two feed items', async () => {
      const res = await server.api('GET', '/api/feed/history');
      return res.body.total >= 2 ? res.body : undefined;
    });
    assert.equal(history.items[0].kind, 'project.updated');
    assert.equal(history.items[1].kind, 'project.created');
    assert.equal(history.items[0].resource, `project:${p.id}`);
    assert.match(history.items[0].summary, /feedy2/);

    const paged = await server.api('GET', '/api/feed/history?limit=1&offset=1');
    assert.equal(paged.body.items.length, 1);
    assert.equal(paged.body.items[0].kind, 'project.created');
    const filtered = await server.api('GET', '/api/feed/history?kind=project.created');
    assert.ok(filtered.body.items.every((i: { kind: string }) => i.kind === 'project.created'));

    const theirs = await server.api('GET', '/api/feed/history', { key: other });
    assert.equal(theirs.status, 200);
    assert.equal(theirs.body.total, 0);
  });

  it('refuses bad paging and dates', async () => {
    assert.equal((await server.api('GET', '/api/feed/history?limit=0')).status, 400);
    assert.equal((await server.api('GET', '/api/feed/history?limit=abc')).status, 400);
    const since = await server.api('GET', '/api/feed/history?since=yesterday');
    assert.equal(since.status, 400);
    assert.match(since.body.error, /since/);
  });
});
