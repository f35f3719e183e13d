// Capabilities are checked by the host on every plugin → host message: a denial answers as cli-v1
// says (exec 126, load null, metadata {}, others an error), and grant/revoke take effect at once.
import assert from 'node:assert/strict';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer, type TestSocket } from '../helpers/server.js';
import { fixture, loadFixture, pluginInfo, waitForLog } from '../fixtures/extensions/helpers.js';

const OWNER_KEY = 'rk_capabilities-test-owner-key-0123456789';

describe('capabilities', () => {
  let server: TestServer;
  let dataDir: string;
  const env = { ROOST_API_KEY: OWNER_KEY, ANTHROPIC_BASE_URL: 'http://127.0.0.1:9/fake-provider', ROOST_SEARCH_API_KEY: 'research-only', FX_PROBE_GREETING: 'hello', ROOST_ALGOD_URL: 'http://127.0.0.1:9/algod' };
  /** Has fx-probe send `message` to the host as a request and returns { value } or { error }. */
  const ask = async (message: Record<string, unknown>) => (await server.api('POST', '/api/fx-probe/host', { body: { message } })).body;
  const grant = (capability: string, action: 'grant' | 'revoke' = 'grant') => server.api('POST', `/api/plugins/fx-probe/${action}`, { body: { capability } });

  before(async () => {
    dataDir = await mkdtemp(`${tmpdir()}/roost-caps-`);
    server = await startTestServer({ dataDir, env });
    assert.equal((await loadFixture(server, 'fx-probe')).status, 201);
  });
  after(async () => {
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('grants on first sight what the manifest asks for, and lists grants', async () => {
    const info = await pluginInfo(server, 'fx-probe');
    assert.deepEqual(info.capabilities, { requested: ['events', 'tokens'], granted: ['events', 'tokens'] });
  });

  it('exec: code 126 without the grant, runs once granted, 126 again once revoked', async () => {
    const denied = await ask({ type: 'exec', command: 'echo should-not-run' });
    assert.equal(denied.value.code, 126);
    assert.equal(denied.value.stdout, '');
    assert.match(denied.value.stderr, /capability "exec" is not granted to fx-probe/);

    const granted = await grant('exec');
    assert.equal(granted.status, 200);
    assert.ok(granted.body.capabilities.granted.includes('exec'));
    assert.deepEqual((await ask({ type: 'exec', command: 'echo hi; echo oops >&2; exit 7' })).value, { code: 7, stdout: 'hi\n', stderr: 'oops\n' });
    const timedOut = await ask({ type: 'exec', command: 'sleep 5', timeout: 0.3 });
    assert.equal(timedOut.value.code, 124);

    assert.equal((await grant('exec', 'revoke')).status, 200);
    assert.equal((await ask({ type: 'exec', command: 'echo again' })).value.code, 126);
    assert.ok(!(await pluginInfo(server, 'fx-probe')).capabilities.granted.includes('exec'));
  });

  it('exec runs commands without the server secrets in their environment', async () => {
    await grant('exec');
    const { value } = await ask({ type: 'exec', command: 'env' });
    assert.equal(value.code, 0);
    assert.match(value.stdout, /^PATH=/m);
    assert.doesNotMatch(value.stdout, /ROOST_API_KEY|capabilities-test-owner-key|ANTHROPIC_BASE_URL/);
    await grant('exec', 'revoke');
  });

  it('store/load: null without the grant (even when something is stored), a round trip with it', async () => {
    assert.deepEqual(await ask({ type: 'load', key: 'colour' }), { value: null });
    const refused = await ask({ type: 'store', key: 'colour', value: 'teal' });
    assert.equal(refused.error.code, 'CAPABILITY_DENIED');
    await grant('store');
    assert.deepEqual(await ask({ type: 'load', key: 'colour' }), { value: null });
    assert.deepEqual(await ask({ type: 'store', key: 'colour', value: 'teal' }), { value: true });
    assert.deepEqual(await ask({ type: 'load', key: 'colour' }), { value: 'teal' });
    await grant('store', 'revoke');
    assert.deepEqual(await ask({ type: 'load', key: 'colour' }), { value: null });
  });

  it('metadata: {} without the grant, the host description with it', async () => {
    assert.deepEqual(await ask({ type: 'metadata' }), { value: {} });
    await grant('metadata');
    const { value } = await ask({ type: 'metadata' });
    assert.equal(value.name, 'roost-server');
    assert.equal(typeof value.version, 'string');
    assert.deepEqual((await ask({ type: 'metadata', keys: ['name'] })).value, { name: 'roost-server' });
  });

  it('tenant and legacy_tenant_columns: refused without tenants, answered once granted', async () => {
    const refused = await ask({ type: 'tenant', tenantId: 'default' });
    assert.equal(refused.error?.code, 'CAPABILITY_DENIED', JSON.stringify(refused));
    assert.match(refused.error.message, /capability "tenants" is not granted to fx-probe/);
    await grant('tenants');
    assert.deepEqual([(await ask({ type: 'tenant', tenantId: 'default' })).value?.id], ['default']);
    assert.equal((await ask({ type: 'tenant', tenantId: 'no-such-tenant' })).error?.code, 'NOT_FOUND');
    const { value } = await ask({ type: 'legacy_tenant_columns', columns: ['plan', 'no_such_column'] });
    assert.deepEqual(Object.keys(value.find((row: { id: string }) => row.id === 'default')), ['id', 'plan']);
    assert.equal((await ask({ type: 'legacy_tenant_columns', columns: ['org'] })).error?.code, 'VALIDATION_ERROR', 'the kernel\'s own columns are not on offer');
    await grant('tenants', 'revoke');
    assert.equal((await ask({ type: 'tenant', tenantId: 'default' })).error?.code, 'CAPABILITY_DENIED');
  });

  it("hands an extension the settings its manifest names, and not another extension's", async () => {
    const init = (await server.api('GET', '/api/fx-probe/init')).body;
    assert.equal(init.config.settings.GREETING, 'hello');
    assert.equal(init.config.settings.ALGOD_URL, undefined, "chainchat's named setting stays chainchat's");
  });

  it('call and secret: refused without the grant, served at once with it', async () => {
    const call = { type: 'call', method: 'GET', path: '/api/projects' };
    assert.equal((await ask(call)).error.code, 'CAPABILITY_DENIED');
    assert.equal((await ask({ type: 'secret', name: 'ANTHROPIC_BASE_URL' })).error.code, 'CAPABILITY_DENIED');
    await grant('call');
    await grant('secrets');
    const served = await ask(call);
    assert.equal(served.value.status, 200);
    assert.ok(Array.isArray(served.value.body.projects));
    assert.deepEqual(await ask({ type: 'secret', name: 'ANTHROPIC_BASE_URL' }), { value: env.ANTHROPIC_BASE_URL });
    assert.deepEqual(await ask({ type: 'secret', name: 'ROOST_API_KEY' }), { value: null }, 'the kernel key is never a secret extensions may read');
    assert.deepEqual(await ask({ type: 'secret', name: 'ROOST_SEARCH_API_KEY' }), { value: null }, "another extension's declared secret is not this one's");
    await grant('call', 'revoke');
    assert.equal((await ask(call)).error.code, 'CAPABILITY_DENIED');
  });

  describe('emit', () => {
    let socket: TestSocket;
    let topic: string;
    before(async () => {
      const workDir = await mkdtemp(`${tmpdir()}/roost-caps-work-`);
      const project = await server.api('POST', '/api/projects', { body: { name: 'watched', workingDir: workDir } });
      topic = `project.${project.body.id}`;
      socket = await server.ws({ key: OWNER_KEY });
      socket.send({ type: 'subscribe', projectId: project.body.id });
      await socket.next((m) => m.type === 'subscribed');
    });
    after(() => socket.close());
    const emit = (payload: object) => ask({ type: 'emit', topic, payload, tenantId: 'default' });

    it('reaches subscribers with the grant and is refused at once without it', async () => {
      assert.deepEqual(await emit({ type: 'fx_signal', n: 1 }), { value: null });
      assert.equal((await socket.next((m) => m.type === 'fx_signal')).n, 1);

      await grant('events', 'revoke');
      assert.equal((await emit({ type: 'fx_signal', n: 2 })).error.code, 'CAPABILITY_DENIED');
      // As a notification (no id) the refusal is only logged; the subscriber sees nothing.
      await server.api('POST', '/api/fx-probe/notify', { body: { message: { type: 'emit', topic, payload: { type: 'fx_signal', n: 3 }, tenantId: 'default' } } });
      socket.send({ type: 'ping' });
      await socket.next((m) => m.type === 'pong');
      assert.equal(socket.messages.filter((m) => m.type === 'fx_signal').length, 0);
      await waitForLog(server, /\[fx-probe\] emit refused: capability "events" is not granted to fx-probe/);

      await grant('events');
      await emit({ type: 'fx_signal', n: 4 });
      assert.equal((await socket.next((m) => m.type === 'fx_signal')).n, 4);
    });
  });

  it('tokens: refused once revoked', async () => {
    assert.equal((await server.api('POST', '/api/fx-probe/token', { body: { agentId: 'a1' } })).status, 201);
    await grant('tokens', 'revoke');
    const refused = await server.api('POST', '/api/fx-probe/token', { body: { agentId: 'a1' } });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.code, 'CAPABILITY_DENIED');
  });

  it('enforces filesystem and exec at the OS level from the next start of the extension', async () => {
    const os = async (body: object) => (await server.api('POST', '/api/fx-probe/os', { body })).body;
    // In an allowed root (tmpdir, for the test server), which the sandbox shows only with the filesystem grant.
    const outsideDir = await mkdtemp(`${tmpdir()}/roost-caps-outside-`);
    const outside = `${outsideDir}/written-by-capabilities-test.txt`;
    try {
      assert.deepEqual(await os({ write: `${dataDir}/extensions/fx-probe/scratch.txt` }), { ok: true });
      assert.deepEqual(await os({ write: outside }), { ok: false, code: 'ERR_ACCESS_DENIED' });
      await assert.rejects(stat(outside));
      assert.deepEqual(await os({ spawn: 'true' }), { ok: false, code: 'ERR_ACCESS_DENIED' });

      await grant('filesystem');
      await grant('exec');
      assert.equal((await server.api('POST', '/api/plugins/fx-probe/unload')).status, 200);
      assert.equal((await server.api('POST', '/api/plugins/load', { body: { name: 'fx-probe' } })).status, 201);
      assert.deepEqual(await os({ write: outside }), { ok: true });
      assert.deepEqual(await os({ spawn: 'true' }), { ok: true });
    } finally {
      await rm(outsideDir, { recursive: true, force: true });
    }
    await grant('filesystem', 'revoke');
    await grant('exec', 'revoke');
  });

  it('refuses unknown capabilities, unknown extensions and callers who are not the instance owner', async () => {
    const unknown = await grant('teleportation');
    assert.equal(unknown.status, 400);
    assert.match(unknown.body.error, /unknown capability "teleportation"/);
    assert.equal((await server.api('POST', '/api/plugins/nobody/grant', { body: { capability: 'exec' } })).status, 404);
    const tenant = await server.api('POST', '/api/tenants/register', { body: { org: 'grabby' } });
    const refused = await server.api('POST', '/api/plugins/fx-probe/grant', { key: tenant.body.apiKey, body: { capability: 'exec' } });
    assert.equal(refused.status, 403);
    assert.ok(!(await pluginInfo(server, 'fx-probe')).capabilities.granted.includes('exec'));
  });

  it('records grants in the audit log and keeps them across a restart', async () => {
    const audit = await server.api('GET', '/api/audit-log?action=grant.capability_revoked&resource=extension:fx-probe');
    assert.ok(audit.body.entries.some((e: { detail: { capability: string } }) => e.detail.capability === 'exec'));
    const grantsBefore = (await pluginInfo(server, 'fx-probe')).capabilities.granted;
    assert.deepEqual(grantsBefore, ['events', 'metadata', 'secrets']);
    await server.stop();
    server = await startTestServer({ dataDir, env });
    assert.deepEqual((await pluginInfo(server, 'fx-probe')).capabilities.granted, grantsBefore);
    assert.deepEqual(await ask({ type: 'exec', command: 'true' }).then((r) => r.value.code), 126);
  });
});
