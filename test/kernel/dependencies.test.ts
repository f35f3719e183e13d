// Declared dependencies between extensions ([server] requires and uses): what a lazy extension requires
// is started before it, an unload or revoke that would strand a dependent is refused unless forced, a
// load whose requirements are missing is refused, and a cycle of hard requirements never loads.
// The fixture graph: fx-dependent requires fx-base (and uses fx-optional, which does not exist);
// fx-cycle-a and fx-cycle-b require each other; fx-orphan requires fx-missing.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parseManifest } from '../../kernel/host/manifest.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { fixture, pluginInfo } from '../fixtures/extensions/helpers.js';

describe('extension dependencies', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ env: { ROOST_EXTENSION_DIRS: fixture('_graph') } });
  });
  after(() => server.cleanup());

  const ping = async (name: string) => {
    const res = await server.api('GET', `/api/${name}/ping`);
    assert.equal(res.status, 200, res.text);
    return res.body as { pid: number; loadedAt: number; readyAt: number };
  };

  it('validates the names in requires and uses', async () => {
    const toml = (lines: string) => `[plugin]\nname = "x"\nversion = "1.0.0"\nprotocol = "cli-v1"\n[server]\nmain = "main.mjs"\n${lines}\n`;
    const parsed = await parseManifest(toml('requires = ["b", "a"]\nuses = ["c"]'), '/tmp');
    assert.deepEqual([parsed.server!.requires, parsed.server!.uses], [['a', 'b'], ['c']]);
    await assert.rejects(parseManifest(toml('requires = ["Not A Name"]'), '/tmp'), /requires/);
    await assert.rejects(parseManifest(toml('uses = ["a", "a"]'), '/tmp'), /uses/);
    await assert.rejects(parseManifest(toml('requires = ["x"]'), '/tmp'), /plugin x names itself in \[server\] requires or uses/);
    await assert.rejects(parseManifest(toml('requires = ["a"]\nuses = ["a"]'), '/tmp'), /names a in both \[server\] requires and uses/);
  });

  it('refuses a cycle of hard requirements at start-up, naming it, and keeps the rest', async () => {
    for (const name of ['fx-cycle-a', 'fx-cycle-b']) {
      const info = await pluginInfo(server, name);
      assert.equal(info.state, 'unloaded');
      assert.match(info.lastError, /hard requirements form a cycle: fx-cycle-(a → fx-cycle-b → fx-cycle-a|b → fx-cycle-a → fx-cycle-b)/);
    }
    assert.match(server.log(), /extension fx-cycle-a not loaded: hard requirements form a cycle: fx-cycle-a → fx-cycle-b → fx-cycle-a/);
    const load = await server.api('POST', '/api/plugins/load', { body: { name: 'fx-cycle-a' } });
    assert.equal(load.status, 409);
    assert.match(load.body.error, /fx-cycle-a cannot be loaded: hard requirements form a cycle: fx-cycle-a → fx-cycle-b → fx-cycle-a/);
    assert.deepEqual(load.body.details.cycle, ['fx-cycle-a', 'fx-cycle-b', 'fx-cycle-a']);
    assert.equal((await server.api('GET', '/api/fx-cycle-a/ping')).status, 404);
    assert.equal((await server.api('GET', '/api/health')).body.status, 'ok');
  });

  it('shows requires, uses and dependents in GET /api/plugins', async () => {
    const [base, dependent] = [await pluginInfo(server, 'fx-base'), await pluginInfo(server, 'fx-dependent')];
    assert.deepEqual([base.requires, base.uses, base.dependents], [[], [], ['fx-dependent']]);
    assert.deepEqual([dependent.requires, dependent.uses, dependent.dependents], [['fx-base'], ['fx-optional'], []]);
    const sessions = await pluginInfo(server, 'sessions');
    assert.ok(sessions.requires.includes('agents') && sessions.uses.includes('projects'), JSON.stringify([sessions.requires, sessions.uses]));
    assert.ok((await pluginInfo(server, 'agents')).dependents.includes('sessions'));
  });

  it('starts a lazy extension\'s requirement before it', async () => {
    assert.equal((await pluginInfo(server, 'fx-base')).state, 'stopped');
    assert.equal((await pluginInfo(server, 'fx-dependent')).state, 'stopped');
    const dependent = await ping('fx-dependent');
    assert.equal((await pluginInfo(server, 'fx-base')).state, 'running', 'fx-base was started for fx-dependent');
    const base = await ping('fx-base');
    assert.ok(base.readyAt <= dependent.loadedAt, `fx-base was ready (${base.readyAt}) before fx-dependent's process began (${dependent.loadedAt})`);
  });

  it('refuses to unload or revoke what a loaded extension requires, with 409 naming the dependents', async () => {
    const unload = await server.api('POST', '/api/plugins/fx-base/unload');
    assert.equal(unload.status, 409);
    assert.equal(unload.body.code, 'CONFLICT');
    assert.match(unload.body.error, /cannot unload extension fx-base: fx-dependent requires it \(force=true unloads them too\)/);
    assert.deepEqual(unload.body.details.dependents, ['fx-dependent']);
    const revoke = await server.api('POST', '/api/plugins/fx-base/revoke', { body: { capability: 'events' } });
    assert.equal(revoke.status, 409);
    assert.match(revoke.body.error, /cannot revoke events from extension fx-base: fx-dependent requires it/);
    assert.equal((await server.api('POST', '/api/plugins/fx-base/revoke?force=maybe', { body: { capability: 'events' } })).status, 400);
    // A capability it never asked for takes nothing from it: revoked at once.
    assert.equal((await server.api('POST', '/api/plugins/fx-base/revoke', { body: { capability: 'network' } })).status, 200);
    const forced = await server.api('POST', '/api/plugins/fx-base/revoke?force=true', { body: { capability: 'events' } });
    assert.equal(forced.status, 200, forced.text);
    assert.ok(!forced.body.capabilities.granted.includes('events'));
    assert.equal((await server.api('POST', '/api/plugins/fx-base/grant', { body: { capability: 'events' } })).status, 200);
    assert.equal((await pluginInfo(server, 'fx-base')).state, 'running');
    assert.equal((await pluginInfo(server, 'fx-dependent')).state, 'running');
  });

  it('force=true unloads the dependents too, and a load whose requirements are missing is refused', async () => {
    await ping('fx-dependent');
    const { pid } = await pluginInfo(server, 'fx-dependent');
    const unload = await server.api('POST', '/api/plugins/fx-base/unload?force=true');
    assert.equal(unload.status, 200, unload.text);
    assert.equal(unload.body.state, 'unloaded');
    assert.equal((await pluginInfo(server, 'fx-dependent')).state, 'unloaded');
    assert.throws(() => process.kill(pid, 0), { code: 'ESRCH' });
    for (const name of ['fx-base', 'fx-dependent']) assert.equal((await server.api('GET', `/api/${name}/ping`)).status, 404);

    const refused = await server.api('POST', '/api/plugins/load', { body: { name: 'fx-dependent' } });
    assert.equal(refused.status, 409);
    assert.match(refused.body.error, /extension fx-dependent requires fx-base, which is not loaded: load it first/);
    assert.deepEqual(refused.body.details.missing, ['fx-base']);
    const orphan = await server.api('POST', '/api/plugins/load', { body: { name: 'fx-orphan' } });
    assert.equal(orphan.status, 409);
    assert.match(orphan.body.error, /fx-orphan requires fx-missing, which is not loaded/);

    assert.equal((await server.api('POST', '/api/plugins/load', { body: { name: 'fx-base' } })).status, 201);
    assert.equal((await server.api('POST', '/api/plugins/load', { body: { name: 'fx-dependent' } })).status, 201);
    await ping('fx-dependent');
    assert.deepEqual((await pluginInfo(server, 'fx-base')).dependents, ['fx-dependent']);
  });
});
