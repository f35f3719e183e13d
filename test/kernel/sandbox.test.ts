// The operating-system sandbox, tried the way an attacker would: hostile extensions (JavaScript with
// only the `db` grant, bash with none) loaded at run time try every escape docs/security.md lists, and
// get nothing. Then: a machine without bubblewrap runs in-tree extensions with a warning and refuses
// third-party ones unless ROOST_ALLOW_UNSANDBOXED=1.
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { repoRoot } from '../helpers/paths.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const hostile = (name: string) => join(repoRoot, 'test/fixtures/hostile', name);
const SERVER_SECRET = 'sk-ant-server-only-secret';

describe('a hostile extension in the sandbox', { timeout: 120_000 }, () => {
  let server: TestServer;
  let outside: string;
  let keyA: string;
  let keyB: string;
  let victimTenant: string;
  let victimProject: { id: string; name: string };

  before(async () => {
    server = await startTestServer({ env: { ANTHROPIC_API_KEY: SERVER_SECRET } });
    outside = await mkdtemp(join(homedir(), '.roost-hostile-'));
    const register = async (org: string) => (await server.api('POST', '/api/tenants/register', { body: { org } })).body;
    keyA = (await register('Attacker')).apiKey;
    const b = await register('Victim');
    keyB = b.apiKey;
    victimTenant = b.tenantId ?? b.tenant?.id;
    assert.ok(victimTenant, JSON.stringify(b));
    const project = await server.api('POST', '/api/projects', { key: keyB, body: { name: 'victim', workingDir: await mkdtemp(join(tmpdir(), 'roost-victim-')) } });
    assert.equal(project.status, 201, project.text);
    victimProject = project.body;
    for (const name of ['hostile-js', 'hostile-sh']) {
      const loaded = await server.api('POST', '/api/plugins/load', { body: { path: hostile(name) } });
      assert.equal(loaded.status, 201, loaded.text);
    }
  });
  after(async () => {
    await server.cleanup();
    await rm(outside, { recursive: true, force: true });
  });

  it('JavaScript with the db grant: sees no other process, file, database, key or network, and names no tenant in the audit log', async () => {
    const plugins = (await server.api('GET', '/api/plugins')).body.plugins as Array<{ name: string; pid: number | null }>;
    const siblingPid = plugins.find((p) => p.name === 'projects')?.pid;
    assert.ok(siblingPid, 'the projects extension runs');
    const res = await server.api('POST', '/api/hostile-js/attack', {
      key: keyA,
      body: { serverPid: server.process.pid, siblingPid, serverPort: server.port, outside, victimTenant },
    });
    assert.equal(res.status, 200, res.text);
    const got = res.body;
    for (const attack of ['serverEnviron', 'signalServer', 'signalSibling', 'kernelDb', 'siblingDb', 'shadow', 'writeOutside', 'renameProject', 'databaseOutside', 'network']) {
      assert.ok(got[attack].refused, `${attack} should be refused, got ${JSON.stringify(got[attack])}`);
    }
    assert.equal(got.signalServer.refused, 'ESRCH', 'the server is not even visible');
    assert.ok(got.processes <= 3, `it sees only its own sandbox's processes, saw ${got.processes}`);
    assert.ok(!got.env.some((name: string) => /KEY|SECRET|TOKEN|ROOST_/.test(name)), `environment: ${got.env.join(', ')}`);

    // Nothing changed outside: no file, no database, the victim's project as it was.
    assert.equal(existsSync(join(outside, 'js-escaped.txt')), false);
    assert.equal(existsSync(join(outside, 'evil.sqlite')), false);
    const project = await server.api('GET', `/api/projects/${victimProject.id}`, { key: keyB });
    assert.equal(project.body.name, 'victim');

    // The audit entries carry the tenant of the request served (the attacker's), never the one named.
    const victimLog = await server.api('GET', '/api/audit-log?action=hostile.audit', { key: keyB });
    assert.equal(victimLog.status, 200, victimLog.text);
    assert.deepEqual(victimLog.body.entries, []);
    const attackerLog = await server.api('GET', '/api/audit-log?action=hostile.audit', { key: keyA });
    assert.deepEqual(attackerLog.body.entries.map((e: { resource: string }) => e.resource), ['in-context']);
  });

  it('bash with no grants: runs as nobody, writes nowhere, reads no secret, signals nothing', async () => {
    const res = await server.api('POST', '/api/hostile-sh/attack', {
      body: { outside, serverPid: server.process.pid, dataDir: server.dataDir },
    });
    assert.equal(res.status, 200, res.text);
    const got = res.body;
    assert.deepEqual({ write: got.write, etc: got.etc, shadow: got.shadow, kernelDb: got.kernelDb, signal: got.signal }, {
      write: 'refused', etc: 'refused', shadow: 'refused', kernelDb: 'refused', signal: 'refused',
    });
    assert.equal(got.uid, 65534);
    const hostProcesses = readdirSync('/proc').filter((d) => /^\d+$/.test(d)).length;
    assert.ok(got.processes < 10 && got.processes < hostProcesses, `saw ${got.processes} processes (the host has ${hostProcesses})`);
    assert.equal(existsSync(join(outside, 'sh-escaped.txt')), false);
    assert.equal(existsSync('/etc/roost-escaped'), false);
  });
});

describe('without bubblewrap', { timeout: 120_000 }, () => {
  it('runs in-tree extensions after a warning naming the package, and refuses third-party ones unless ROOST_ALLOW_UNSANDBOXED=1', async () => {
    const bare = await startTestServer({ env: { ROOST_BWRAP: '/nonexistent/bwrap' } });
    try {
      assert.equal((await bare.api('GET', '/api/agents')).status, 200);
      assert.match(bare.log(), /WITHOUT an operating-system sandbox.*"bubblewrap"/);
      const refused = await bare.api('POST', '/api/plugins/load', { body: { path: hostile('hostile-sh') } });
      assert.equal(refused.status, 409, refused.text);
      assert.match(refused.body.error, /bubblewrap.*ROOST_ALLOW_UNSANDBOXED=1/);
      assert.equal((await bare.api('GET', '/api/plugins')).body.plugins.some((p: { name: string }) => p.name === 'hostile-sh'), false);
    } finally {
      await bare.cleanup();
    }
    const allowed = await startTestServer({ env: { ROOST_BWRAP: '/nonexistent/bwrap', ROOST_ALLOW_UNSANDBOXED: '1' } });
    try {
      const loaded = await allowed.api('POST', '/api/plugins/load', { body: { path: join(repoRoot, 'test/fixtures/extensions/fx-shell') } });
      assert.equal(loaded.status, 201, loaded.text);
      assert.equal((await allowed.api('GET', '/api/fx-shell/hello/world')).body.hello, 'world');
    } finally {
      await allowed.cleanup();
    }
  });
});
