import assert from 'node:assert/strict';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { agentToken, callTool, createAgent, mcpClient } from '../agents/support.js';
import type { TestServer } from '../helpers/server.js';
import { storedText } from '../helpers/stored.js';
import { saveMemory, startMemoryServer } from './support.js';

const SECRET_WORDS = ['Zanzibar', 'periwinkle', 'Quetzalcoatl', 'marmalade', 'Ouagadougou'];

describe('memory at rest: sealed in the database, and the key that opens it', () => {
  let server: TestServer;
  let dataDir: string;
  let agent: any;
  before(async () => {
    server = await startMemoryServer();
    dataDir = server.dataDir;
    agent = await createAgent(server, undefined, { name: 'keeper' });
    await saveMemory(server, undefined, agent.id, 'travel-plan-Zanzibar', 'Fly to Zanzibar in a periwinkle plane.');
    const client = await mcpClient(server, await agentToken(server, undefined, agent.id));
    try {
      assert.equal((await callTool(client, 'svc_library_write', { name: 'Quetzalcoatl notes', content: 'marmalade recipe', tags: ['Ouagadougou'] })).isError, false);
      assert.equal((await callTool(client, 'svc_record_observation', { content: 'The owner dreams of marmalade', source: 'Ouagadougou chat', tags: ['periwinkle'] })).isError, false);
    } finally {
      await client.close();
    }
  });
  after(async () => {
    await server.stop();
    await rm(dataDir, { recursive: true, force: true }); // restarted servers were given the dir, so cleanup() keeps it
  });

  it('keeps no plaintext, no key and no name in the memory database (the SQLite file, or the PostgreSQL tables)', async () => {
    await server.stop(); // the WAL is folded into the database file on a clean stop
    const sealingKey = (await readFile(join(dataDir, 'sealing.key'), 'utf8')).trim();
    const stored = await storedText(server, 'memory');
    assert.ok(stored.includes(agent.id), 'the memories are in what was read');
    const text = stored.toLowerCase();
    for (const word of [...SECRET_WORDS, sealingKey, 'travel-plan']) assert.ok(!text.includes(word.toLowerCase()), `the memory database does not contain "${word}"`);
    server = await startMemoryServer({ dataDir });
  });

  it('reads everything back with the same key after a restart', async () => {
    await server.stop();
    server = await startMemoryServer({ dataDir });
    const res = await server.api('POST', '/api/mcp/recall-memory', { body: { agentId: agent.id, query: 'zanzibar' } });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.memories.map((m: any) => [m.key, m.content]), [['travel-plan-Zanzibar', 'Fly to Zanzibar in a periwinkle plane.']]);
  });

  it('refuses, saying what to do, under another sealing key, and loses nothing', async () => {
    await server.stop();
    server = await startMemoryServer({ dataDir, env: { ROOST_SEALING_KEY: 'cd'.repeat(32) } });
    const wrong = await server.api('POST', '/api/mcp/recall-memory', { body: { agentId: agent.id, key: 'travel-plan-Zanzibar' } });
    assert.equal(wrong.status, 503, wrong.text);
    assert.match(wrong.body.error, /sealed with another sealing key: restore the previous ROOST_SEALING_KEY/);
    const save = await server.api('POST', '/api/mcp/save-memory', { body: { agentId: agent.id, key: 'travel-plan-Zanzibar', content: 'overwritten' } });
    assert.equal(save.status, 503);

    await server.stop();
    server = await startMemoryServer({ dataDir });
    const back = await server.api('POST', '/api/mcp/recall-memory', { body: { agentId: agent.id, key: 'travel-plan-Zanzibar' } });
    assert.equal(back.status, 200, back.text);
    assert.equal(back.body.memory.content, 'Fly to Zanzibar in a periwinkle plane.');
  });
});
