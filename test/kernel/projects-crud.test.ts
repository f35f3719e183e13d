import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/server.js';

describe('projects through the extension', () => {
  let server: TestServer;
  let workDir: string;
  before(async () => {
    server = await startTestServer();
    workDir = await mkdtemp(join(tmpdir(), 'roost-proj-'));
  });
  after(() => server.cleanup());

  it('creates, reads, updates, lists and deletes a project', async () => {
    const created = await server.api('POST', '/api/projects', { body: { name: 'alpha', workingDir: workDir, env_vars: { NODE_ENV: 'test' } } });
    assert.equal(created.status, 201);
    assert.equal(created.body.name, 'alpha');
    assert.deepEqual(created.body.env_vars, { NODE_ENV: 'test' });
    const id = created.body.id;

    const got = await server.api('GET', `/api/projects/${id}`);
    assert.equal(got.status, 200);
    assert.equal(got.body.workingDir, workDir);

    const updated = await server.api('PUT', `/api/projects/${id}`, { body: { name: 'beta' } });
    assert.equal(updated.status, 200);
    assert.equal(updated.body.name, 'beta');

    const list = await server.api('GET', '/api/projects');
    assert.equal(list.body.total, 1);
    assert.equal(list.body.projects[0].name, 'beta');

    assert.equal((await server.api('DELETE', `/api/projects/${id}`)).status, 204);
    const gone = await server.api('GET', `/api/projects/${id}`);
    assert.equal(gone.status, 404);
    assert.equal(gone.body.code, 'NOT_FOUND');
  });

  it('refuses a relative or missing workingDir and non-string env values', async () => {
    const relative = await server.api('POST', '/api/projects', { body: { name: 'x', workingDir: 'relative/dir' } });
    assert.equal(relative.status, 400);
    assert.match(relative.body.error, /absolute/);
    const missing = await server.api('POST', '/api/projects', { body: { name: 'x', workingDir: join(workDir, 'nope') } });
    assert.equal(missing.status, 400);
    assert.match(missing.body.error, /not an existing directory/);
    const env = await server.api('POST', '/api/projects', { body: { name: 'x', workingDir: workDir, env_vars: { A: 1 } } });
    assert.equal(env.status, 400);
    assert.equal(env.body.code, 'VALIDATION_ERROR');
    assert.match(env.body.error, /env_vars/);
  });
});
