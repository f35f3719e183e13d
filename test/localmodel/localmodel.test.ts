import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startFakeOllama, type FakeOllama } from '../fakes/ollama.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

describe('local model runner over the Ollama API', () => {
  let ollama: FakeOllama;
  let server: TestServer;
  let tenantKey: string;
  before(async () => {
    ollama = await startFakeOllama({ models: ['llama3.2'], registry: ['qwen3:4b', 'mistral', 'house-finetune:q4'] });
    server = await startTestServer({ env: { OLLAMA_HOST: ollama.url } });
    tenantKey = (await server.api('POST', '/api/tenants/register', { body: { org: 'acme' } })).body.apiKey;
  });
  after(async () => {
    await server.cleanup();
    await ollama.close();
  });

  it('reports status, models, running models and the library', async () => {
    const status = await server.api('GET', '/api/localmodel/status');
    assert.equal(status.status, 200);
    assert.equal(status.body.available, true);
    assert.equal(status.body.version, '0.9.0');
    const models = await server.api('GET', '/api/localmodel/models');
    assert.deepEqual(models.body.models.map((m: { name: string }) => m.name), ['llama3.2:latest']);
    const running = await server.api('GET', '/api/localmodel/models/running');
    assert.deepEqual(running.body.models, []);
    const library = await server.api('GET', '/api/localmodel/library?search=llama3.2');
    assert.equal(library.body.models.length, 1);
    assert.deepEqual(library.body.models[0].installed, ['latest']);
    const everything = await server.api('GET', '/api/localmodel/library');
    assert.ok(everything.body.models.length > 5);
  });

  it('lists the models the runner holds beside the catalogue, with the tags loaded now', async () => {
    // Pulled and loaded behind Roost's back, as another Ollama client would.
    const pulled = await fetch(`${ollama.url}/api/pull`, { method: 'POST', body: JSON.stringify({ model: 'house-finetune:q4', stream: false }) });
    assert.equal(pulled.status, 200);
    await pulled.text();
    const chat = await fetch(`${ollama.url}/api/chat`, { method: 'POST', body: JSON.stringify({ model: 'llama3.2', stream: false, messages: [{ role: 'user', content: 'hi' }] }) });
    assert.equal(chat.status, 200);
    await chat.text();
    try {
      const library = (await server.api('GET', '/api/localmodel/library')).body.models;
      const extra = library.find((m: { name: string }) => m.name === 'house-finetune');
      assert.deepEqual(extra, { name: 'house-finetune', description: 'On the runner; not in the catalogue', tags: ['q4'], capabilities: [], source: 'runner', installed: ['q4'], running: [] });
      assert.equal(library.at(-1).name, 'house-finetune', 'the catalogue comes first');
      const llama = library.find((m: { name: string }) => m.name === 'llama3.2');
      assert.equal(llama.source, 'catalogue');
      assert.deepEqual(llama.running, ['latest']);
      const searched = (await server.api('GET', '/api/localmodel/library?search=finetune')).body.models;
      assert.deepEqual(searched.map((m: { name: string }) => m.name), ['house-finetune']);
    } finally {
      await fetch(`${ollama.url}/api/delete`, { method: 'DELETE', body: JSON.stringify({ model: 'house-finetune:q4' }) }).then((r) => r.text());
    }
  });

  it('pulls a model with progress on the WebSocket and at pull/status, then deletes it', async () => {
    const socket = await server.ws();
    socket.send({ type: 'subscribe', localmodelPulls: 'all' });
    await socket.next((m) => m.type === 'subscribed');
    const started = await server.api('POST', '/api/localmodel/models/pull', { body: { name: 'qwen3:4b' } });
    assert.equal(started.status, 202);
    assert.equal(started.body.name, 'qwen3:4b');
    const progress = await socket.next((m) => m.type === 'localmodel_pull_progress' && m.total > 0 && m.finishedAt === null);
    assert.equal(progress.name, 'qwen3:4b');
    const done = await socket.next((m) => m.type === 'localmodel_pull_progress' && m.finishedAt !== null, 10_000);
    assert.equal(done.status, 'success');
    assert.equal(done.percent, 100);
    const status = await server.api('GET', '/api/localmodel/models/pull/status');
    assert.equal(status.body.pulls.find((p: { name: string }) => p.name === 'qwen3:4b').status, 'success');
    assert.ok(ollama.installed().includes('qwen3:4b'));
    await socket.close();

    const deleted = await server.api('DELETE', '/api/localmodel/models', { body: { name: 'qwen3:4b' } });
    assert.equal(deleted.status, 200);
    assert.ok(!ollama.installed().includes('qwen3:4b'));
    const again = await server.api('DELETE', '/api/localmodel/models?name=qwen3:4b');
    assert.equal(again.status, 404);
  });

  it('reports a failed pull of a model the registry does not have', async () => {
    await server.api('POST', '/api/localmodel/models/pull', { body: { name: 'no-such-model' } });
    let pull;
    for (let i = 0; i < 50 && !pull?.finishedAt; i++) {
      await new Promise((r) => setTimeout(r, 50));
      pull = (await server.api('GET', '/api/localmodel/models/pull/status')).body.pulls.find((p: { name: string }) => p.name === 'no-such-model');
    }
    assert.equal(pull.status, 'error');
    assert.match(pull.error, /does not exist/);
  });

  it('refuses bad names and callers other than the instance owner', async () => {
    const bad = await server.api('POST', '/api/localmodel/models/pull', { body: { name: '../etc' } });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.code, 'VALIDATION_ERROR');
    const missing = await server.api('POST', '/api/localmodel/models/pull', { body: {} });
    assert.equal(missing.status, 400);
    const tenantPull = await server.api('POST', '/api/localmodel/models/pull', { body: { name: 'mistral' }, key: tenantKey });
    assert.equal(tenantPull.status, 403);
    const tenantDelete = await server.api('DELETE', '/api/localmodel/models', { body: { name: 'llama3.2' }, key: tenantKey });
    assert.equal(tenantDelete.status, 403);
    assert.ok(ollama.installed().includes('llama3.2:latest'));
    const tenantRead = await server.api('GET', '/api/localmodel/models', { key: tenantKey });
    assert.equal(tenantRead.status, 200);
  });

  it('says the runner is unavailable when Ollama is down', async () => {
    const down = await startTestServer({ env: { OLLAMA_HOST: 'http://127.0.0.1:9' } });
    try {
      const status = await down.api('GET', '/api/localmodel/status');
      assert.equal(status.body.available, false);
      assert.match(status.body.error, /not reachable/);
      const models = await down.api('GET', '/api/localmodel/models');
      assert.equal(models.status, 502);
      assert.equal(models.body.code, 'UPSTREAM_ERROR');
    } finally {
      await down.cleanup();
    }
  });
});
