// MCP server configs across sealing keys and versions: a config written before args and URLs were
// sealed is sealed at start; after the deployment's sealing key changed, configs are still listed,
// changed and deleted (nothing is opened for that), the unreadable one is reported and skipped, and
// sending its secrets again makes it work.
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { callAs, createAgent, FIXTURES } from '../agents/support.js';
import { startTestServer, type StartOptions, type TestServer } from '../helpers/server.js';
import { extensionDb, storedText } from '../helpers/stored.js';
import { writeStdioServer } from './support.js';

const MASK = '********';

describe('MCP server configs and the sealing key', () => {
  let server: TestServer;
  let dataDir: string;
  let databaseUrl: string | null;
  let script: string;
  let agent: any;
  let old: any;
  const start = (env: Record<string, string> = {}) => {
    const options: StartOptions = { dataDir, env: { ROOST_EXTENSION_DIRS: FIXTURES, ...env } };
    return startTestServer(databaseUrl ? { ...options, databaseUrl } : options);
  };

  before(async () => {
    script = await writeStdioServer();
    server = await startTestServer({ env: { ROOST_EXTENSION_DIRS: FIXTURES } });
    ({ dataDir, databaseUrl } = server);
    agent = await createAgent(server, undefined, { name: 'sealing-agent', model: 'claude-sonnet-5-5' });
    const res = await server.api('POST', '/api/mcp-servers', { body: { name: 'old', transport: 'stdio', command: process.execPath, args: [script], env: { GREETING: 'sealed-env-1' }, agentIds: 'all' } });
    assert.equal(res.status, 201, res.text);
    old = res.body;
  });
  after(async () => {
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('seals the args and URL of a config stored before they were sealed, when the extension starts', async () => {
    await server.stop();
    // What migration 001 stored: the args and the URL in plain columns, nothing in target_sealed.
    const db = extensionDb(server, 'mcp-servers');
    try {
      await db('mcp_servers').where({ id: old.id }).update({ args: JSON.stringify([script, '--legacy=plain-arg-secret-3']), target_sealed: null, secret_names: JSON.stringify({ env: ['GREETING'], headers: [] }) });
    } finally {
      await db.destroy();
    }
    server = await start();
    const one = await server.api('GET', `/api/mcp-servers/${old.id}`);
    assert.equal(one.status, 200, one.text);
    assert.deepEqual(one.body.args, [MASK, MASK]);
    const tested = await server.api('POST', `/api/mcp-servers/${old.id}/test`, { timeoutMs: 60_000 });
    assert.equal(tested.body.ok, true, tested.text);
    await server.stop(); // a clean stop folds the write-ahead log into the file
    const stored = await storedText(server, 'mcp-servers');
    assert.ok(stored.includes(old.id));
    assert.equal(stored.includes('plain-arg-secret-3'), false, 'the legacy argument is sealed now');
    assert.equal(stored.includes('roost-mcp-stdio'), false, 'the script path too');
    server = await start();
  });

  it('lists, changes and deletes configs sealed under another key, and reports the unreadable one clearly', async () => {
    const lost = await server.api('POST', '/api/mcp-servers', { body: { name: 'lost', transport: 'http', url: 'https://mcp.example.com/mcp?token=t', agentIds: 'all' } });
    assert.equal(lost.status, 201, lost.text);
    await server.stop();
    server = await start({ ROOST_SEALING_KEY: 'ab'.repeat(32) });
    const fresh = await server.api('POST', '/api/mcp-servers', { body: { name: 'fresh', transport: 'stdio', command: process.execPath, args: [script], agentIds: 'all' } });
    assert.equal(fresh.status, 201, fresh.text);

    const list = await server.api('GET', '/api/mcp-servers');
    assert.equal(list.status, 200, list.text);
    assert.deepEqual(list.body.servers.map((s: any) => [s.name, s.secretsReadable]), [['fresh', true], ['lost', false], ['old', false]]);
    assert.equal((await server.api('GET', `/api/mcp-servers/${old.id}`)).status, 200);

    const tested = await server.api('POST', `/api/mcp-servers/${old.id}/test`);
    assert.equal(tested.body.ok, false);
    assert.match(tested.body.error, /the secrets of MCP server "old" do not open with this deployment's sealing key .*send its args and env again in full/);
    // A session is offered the readable configs' tools; the unreadable ones are reported, not fatal.
    const offered = await callAs(server, undefined, 'GET', `/api/internal/mcp-servers/agents/${agent.id}/tools`);
    assert.equal(offered.status, 200, JSON.stringify(offered.body));
    assert.ok(offered.body.tools.some((t: any) => t.name === 'mcp__fresh__echo'));
    assert.deepEqual(offered.body.errors.map((e: any) => e.server).sort(), ['lost', 'old']);
    assert.match(offered.body.errors[0].error, /do not open with this deployment's sealing key/);
    const call = await callAs(server, undefined, 'POST', `/api/internal/mcp-servers/${old.id}/call`, { agentId: agent.id, tool: 'echo', arguments: { text: 'x' } });
    assert.equal(call.status, 409);

    // Changing what is not sealed opens nothing; a masked value needs the stored one, so it is refused.
    assert.equal((await server.api('PUT', `/api/mcp-servers/${old.id}`, { body: { description: 'still here' } })).status, 200);
    const masked = await server.api('PUT', `/api/mcp-servers/${old.id}`, { body: { env: { GREETING: MASK } } });
    assert.equal(masked.status, 409);
    assert.match(masked.body.error, /send its args and env again in full/);
    // Sending them again makes the config whole.
    const reentered = await server.api('PUT', `/api/mcp-servers/${old.id}`, { body: { args: [script], env: { GREETING: 'sealed-env-2' } } });
    assert.equal(reentered.status, 200, reentered.text);
    assert.equal(reentered.body.secretsReadable, true);
    assert.equal(reentered.body.description, 'still here');
    assert.equal((await server.api('POST', `/api/mcp-servers/${old.id}/test`, { timeoutMs: 60_000 })).body.ok, true);
    const env = await callAs(server, undefined, 'POST', `/api/internal/mcp-servers/${old.id}/call`, { agentId: agent.id, tool: 'env', arguments: { name: 'GREETING' } });
    assert.equal(env.body.content[0].text, 'sealed-env-2');

    assert.equal((await server.api('DELETE', `/api/mcp-servers/${lost.body.id}`)).status, 204);
    assert.deepEqual((await server.api('GET', '/api/mcp-servers')).body.servers.map((s: any) => s.name), ['fresh', 'old']);
  });
});
