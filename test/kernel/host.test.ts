// The extension host seen from outside: extensions written by hand in Node and bash (no Roost code)
// are loaded into a live server and receive exactly what docs/protocol.md promises.
import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { fixture, loadFixture, pluginInfo, waitForLog } from '../fixtures/extensions/helpers.js';
import { waitFor } from '../helpers/wait.js';
import { hostPid } from '../helpers/sandbox-pids.js';

describe('extension host', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
    assert.equal((await loadFixture(server, 'fx-probe')).status, 201);
  });
  after(() => server.cleanup());

  it('sends init with the protocol, the plugin, the host, granted capabilities and config', async () => {
    const { status, body: init } = await server.api('GET', '/api/fx-probe/init');
    assert.equal(status, 200);
    assert.equal(init.type, 'init');
    assert.equal(init.protocol, 'cli-v1');
    assert.deepEqual(init.args, []);
    assert.equal(init.project, null);
    assert.deepEqual(init.plugin, { name: 'fx-probe', version: '1.0.0', dir: fixture('fx-probe') });
    assert.equal(init.host.name, 'roost-server');
    assert.deepEqual(init.capabilities, { events: true, tokens: true });
    assert.equal(init.storage, undefined, 'no db capability, no storage');
    assert.equal(init.config.serverUrl, server.url);
    assert.equal(init.config.dataDir, server.dataDir);
  });

  it('lists a loaded extension with its state, pid, routes, ws types and ready schema version', async () => {
    const info = await pluginInfo(server, 'fx-probe');
    assert.equal(info.state, 'running');
    assert.equal(typeof info.pid, 'number');
    assert.equal(info.schemaVersion, 3);
    assert.equal(info.dir, fixture('fx-probe'));
    assert.deepEqual(info.ws, ['echo_test']);
    assert.ok(info.routes.includes('GET /api/fx-probe/echo/:word'));
    const health = await server.api('GET', '/api/health');
    assert.equal(health.body.extensions['fx-probe'], 'running');
    assert.equal(health.body.schemaVersions['fx-probe'], 3);
  });

  it('sends a request with method, path, route, decoded params, query, body and the caller', async () => {
    const { status, body: m } = await server.api('POST', '/api/fx-probe/echo/h%C3%A9llo?tag=a&tag=b&one=1', { body: { nested: { list: [1, 2] } } });
    assert.equal(status, 200);
    assert.equal(m.type, 'request');
    assert.equal(typeof m.id, 'string');
    assert.equal(m.method, 'POST');
    assert.equal(m.route, 'POST /api/fx-probe/echo/:word');
    assert.deepEqual(m.params, { word: 'héllo' });
    assert.deepEqual(m.query, { tag: ['a', 'b'], one: '1' });
    assert.deepEqual(m.body, { nested: { list: [1, 2] } });
    assert.deepEqual(m.auth, { tenantId: 'default', role: 'owner', actor: 'local' });
  });

  it('passes status and headers through, and turns a malformed reply into 502 and an error response into its status', async () => {
    const headers = await server.api('GET', '/api/fx-probe/headers');
    assert.equal(headers.status, 202);
    assert.equal(headers.headers.get('x-fx-probe'), 'yes');
    const malformed = await server.api('GET', '/api/fx-probe/malformed');
    assert.equal(malformed.status, 502);
    assert.equal(malformed.body.code, 'UPSTREAM_ERROR');
    const refused = await server.api('GET', '/api/fx-probe/conflict');
    assert.equal(refused.status, 409);
    assert.deepEqual(refused.body, { error: 'the probe refuses on purpose', code: 'CONFLICT' });
  });

  it('serves internal routes only to `call`, never over HTTP', async () => {
    const direct = await server.api('GET', '/api/fx-probe/internal');
    assert.equal(direct.status, 404);
    assert.equal(direct.body.code, 'ROUTE_NOT_FOUND');
    await server.api('POST', '/api/plugins/fx-probe/grant', { body: { capability: 'call' } });
    const called = await server.api('POST', '/api/fx-probe/host', { body: { message: { type: 'call', method: 'GET', path: '/api/fx-probe/internal' } } });
    assert.deepEqual(called.body, { value: { status: 200, body: { internal: true, auth: { tenantId: 'default', role: 'owner', actor: 'local' } } } });
  });

  it('routes `call` to another extension with the caller of the request being served', async () => {
    const tenant = await server.api('POST', '/api/tenants/register', { body: { org: 'call-co' } });
    const workDir = await mkdtemp(`${tmpdir()}/roost-host-`);
    await server.api('POST', '/api/projects', { key: tenant.body.apiKey, body: { name: 'theirs', workingDir: workDir } });
    await server.api('POST', '/api/projects', { body: { name: 'mine', workingDir: workDir } });
    const asTenant = await server.api('POST', '/api/fx-probe/host', { key: tenant.body.apiKey, body: { message: { type: 'call', method: 'GET', path: '/api/projects?limit=5' } } });
    assert.equal(asTenant.body.value.status, 200);
    assert.deepEqual(asTenant.body.value.body.projects.map((p: { name: string }) => p.name), ['theirs']);
    const nobody = await server.api('POST', '/api/fx-probe/host', { body: { message: { type: 'call', method: 'GET', path: '/api/nobody-serves-this' } } });
    assert.equal(nobody.body.value.status, 404);
    assert.equal(nobody.body.value.body.code, 'ROUTE_NOT_FOUND');
  });

  it('delivers bus events the extension subscribed to, with their tenant', async () => {
    const workDir = await mkdtemp(`${tmpdir()}/roost-host-`);
    const created = await server.api('POST', '/api/projects', { body: { name: 'evented', workingDir: workDir } });
    const event = await waitFor('the project event at fx-probe', async () => {
      const { body } = await server.api('GET', '/api/fx-probe/events');
      return body.events.find((e: { topic: string }) => e.topic === `project.${created.body.id}`);
    });
    assert.equal(event.tenantId, 'default');
    assert.equal(event.payload.type, 'project_updated');
    assert.equal(event.payload.action, 'created');
  });

  it('appends `audit` messages to the audit log under the extension name', async () => {
    const sent = await server.api('POST', '/api/fx-probe/notify', { body: { message: { type: 'audit', action: 'fx.probed', resource: 'thing:42', detail: { why: 'test' }, tenantId: 'default' } } });
    assert.equal(sent.status, 202);
    const entry = await waitFor('the audit entry', async () => {
      const { body } = await server.api('GET', '/api/audit-log?action=fx.probed');
      return body.entries[0];
    });
    assert.equal(entry.actor, 'extension:fx-probe');
    assert.equal(entry.resource, 'thing:42');
    assert.deepEqual(entry.detail, { why: 'test' });
  });

  it('answers plugin messages of unknown type with UNKNOWN_TYPE and invalid ones with VALIDATION_ERROR', async () => {
    const unknown = await server.api('POST', '/api/fx-probe/host', { body: { message: { type: 'teleport' } } });
    assert.equal(unknown.body.error.code, 'UNKNOWN_TYPE');
    const invalid = await server.api('POST', '/api/fx-probe/host', { body: { message: { type: 'call', method: 'BREW', path: 'no-slash' } } });
    assert.equal(invalid.body.error.code, 'VALIDATION_ERROR');
    assert.match(invalid.body.error.message, /method/);
  });

  it('runs a bash extension: lazy, started on first use, speaking cli-v1 by hand', async () => {
    const loaded = await loadFixture(server, 'fx-shell');
    assert.equal(loaded.status, 201);
    assert.equal(loaded.body.state, 'stopped');
    assert.equal(loaded.body.activation, 'lazy');
    const hello = await server.api('GET', '/api/fx-shell/hello/world');
    assert.equal(hello.status, 200);
    assert.equal(hello.body.hello, 'world');
    assert.equal(hello.body.from, 'bash');
    assert.equal(hello.body.path, '/api/fx-shell/hello/world');
    const info = await pluginInfo(server, 'fx-shell');
    assert.equal(info.state, 'running');
    assert.ok(hostPid(info.pid, hello.body.pid), 'the process the host runs is the one that answered');
    assert.equal(info.schemaVersion, 1);
    await waitForLog(server, /\[fx-shell\] fx-shell: got init/);
  });

  it('serves public routes without a key as an anonymous viewer', async () => {
    const res = await server.api('GET', '/api/fx-probe/public');
    assert.equal(res.status, 200);
    assert.equal(res.body.auth.role, 'viewer');
    assert.equal(res.body.auth.actor, 'anonymous');
  });
});
