// /api/councils CRUD, bad input (400 naming the field, nothing stored), roles, and another tenant's ids
// (404 exactly like unknown ones, over REST, the WebSocket and MCP).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { callTool, mcpClient, registerTenant, type Tenant } from '../agents/support.js';
import { startCouncils, type CouncilFixture } from './support.js';

describe('the councils API', () => {
  let f: CouncilFixture;
  let ids: string[];
  let other: Tenant;
  let theirs: { council: any; launch: any; agents: string[] };

  before(async () => {
    f = await startCouncils();
    ids = await f.members(['ALPHA', 'BETA', 'GAMMA']);
    other = await registerTenant(f.server, 'elsewhere');
    const agents = await f.members(['DELTA', 'EPSILON'], other.owner);
    const council = await f.council({ members: agents, rounds: 0 }, other.owner);
    const launch = await f.launch(council.id, {}, other.owner);
    await f.until(launch.id, 'their launch to complete', (l) => l.stage === 'completed', 30_000, other.owner);
    theirs = { council, launch, agents };
  });
  after(() => f.h.close());

  it('creates, reads, lists, updates and deletes a council with its defaults', async () => {
    const council = await f.council({ members: ids });
    assert.deepEqual(
      [council.rounds, council.questionTemplate, council.quorum, council.memberTimeoutSeconds, council.chairId, council.synthesizerId],
      [1, '{{prompt}}', 2, 600, null, null],
    );
    assert.deepEqual((await f.server.api('GET', `/api/councils/${council.id}`)).body, council);
    const list = await f.server.api('GET', '/api/councils?limit=200');
    assert.ok(list.body.councils.some((c: any) => c.id === council.id));
    const put = await f.server.api('PUT', `/api/councils/${council.id}`, { body: { members: ids.slice(0, 1), chairId: ids[0], rounds: 5, synthesizerId: ids[2] } });
    assert.equal(put.status, 200, put.text);
    assert.deepEqual([put.body.members, put.body.quorum, put.body.rounds, put.body.chairId, put.body.synthesizerId], [[ids[0]], 1, 5, ids[0], ids[2]]);
    const cleared = await f.server.api('PUT', `/api/councils/${council.id}`, { body: { synthesizerId: null } });
    assert.equal(cleared.body.synthesizerId, null);
    assert.equal((await f.server.api('DELETE', `/api/councils/${council.id}`)).status, 204);
    assert.equal((await f.server.api('GET', `/api/councils/${council.id}`)).status, 404);
  });

  it('refuses bad input with 400 naming the problem, and stores nothing', async () => {
    const before = (await f.server.api('GET', '/api/councils?limit=200&total=true')).body.total;
    const bad: Array<[unknown, RegExp]> = [
      [{ members: ids }, /name/],
      [{ name: 'x' }, /members/],
      [{ name: 'x', members: [] }, /members/],
      [{ name: 'x', members: [ids[0], ids[0]] }, /members/],
      [{ name: 'x', members: ids, rounds: 6 }, /rounds/],
      [{ name: 'x', members: ids, rounds: 1.5 }, /rounds/],
      [{ name: 'x', members: ids, questionTemplate: 'no placeholder' }, /questionTemplate/],
      [{ name: 'x', members: ids, quorum: 4 }, /quorum: 4 is more than the 3 members/],
      [{ name: 'x', members: ids, chairId: 'someone-else' }, /chairId: someone-else is not one of the members/],
      [{ name: 'x', members: [...ids, 'no-such-agent'] }, /members: agent no-such-agent not found/],
      [{ name: 'x', members: ids, synthesizerId: theirs.agents[0] }, new RegExp(`agent ${theirs.agents[0]} not found`)],
      [{ name: 'x', members: [theirs.agents[0]] }, /not found/],
      [{ name: 'x', members: ids, memberTimeoutSeconds: 0 }, /memberTimeoutSeconds/],
      [{ name: 'x', members: ids, extra: true }, /extra is not allowed/],
      [{ name: 'x'.repeat(201), members: ids }, /name/],
      [{ name: 'x', members: 'ALPHA' }, /members/],
      [[1, 2], /object/],
    ];
    for (const [body, message] of bad) {
      const res = await f.server.api('POST', '/api/councils', { body });
      assert.equal(res.status, 400, `${JSON.stringify(body).slice(0, 80)}: ${res.text}`);
      assert.equal(res.body.code, 'VALIDATION_ERROR');
      assert.match(res.body.error, message);
    }
    const malformed = await f.server.api('POST', '/api/councils', { raw: '{"name": "x", "members": [' });
    assert.equal(malformed.status, 400);
    let nested: unknown = 'deep';
    for (let i = 0; i < 200; i++) nested = { nested };
    assert.equal((await f.server.api('POST', '/api/councils', { body: { name: 'x', members: ids, nested } })).status, 400);
    const huge = await f.server.api('POST', '/api/councils', { body: { name: 'x', members: ids, description: 'x'.repeat(2 * 1024 * 1024) } });
    assert.equal(huge.status, 413);
    assert.equal((await f.server.api('GET', '/api/councils?limit=200&total=true')).body.total, before);

    const council = await f.council({ members: ids });
    const launches: Array<[unknown, RegExp]> = [[{}, /prompt/], [{ prompt: '' }, /prompt/], [{ prompt: 'x', auto: 'yes' }, /auto/], [{ prompt: 'x', extra: 1 }, /extra is not allowed/]];
    for (const [body, message] of launches) {
      const res = await f.server.api('POST', `/api/councils/${council.id}/launch`, { body });
      assert.equal(res.status, 400, res.text);
      assert.match(res.body.error, message);
    }
    assert.equal((await f.server.api('GET', `/api/councils/${council.id}/launches`)).body.launches.length, 0);
    assert.equal((await f.server.api('PUT', `/api/councils/${council.id}`, { body: {} })).status, 400);
    assert.equal((await f.server.api('GET', '/api/council-launches?limit=0')).status, 400);
    const done = await f.launch(council.id);
    await f.until(done.id, 'the launch to complete', (l) => l.stage === 'completed');
    assert.equal((await f.post(`/api/council-launches/${done.id}/chat`, { message: '' })).status, 400);
    assert.equal((await f.post(`/api/council-launches/${done.id}/abort`, { force: true })).status, 400);
    assert.equal((await f.server.api('GET', `/api/council-launches/${done.id}/logs?after=-1`)).status, 400);
  });

  it('answers 404 for another tenant\'s council and launch, as for unknown ones', async () => {
    for (const id of [theirs.council.id, 'no-such-council']) {
      for (const [method, path, body] of [
        ['GET', `/api/councils/${id}`], ['PUT', `/api/councils/${id}`, { name: 'mine now' }], ['DELETE', `/api/councils/${id}`],
        ['POST', `/api/councils/${id}/launch`, { prompt: 'x' }], ['GET', `/api/councils/${id}/launches`],
      ] as Array<[string, string, unknown?]>) {
        const res = await f.server.api(method, path, body === undefined ? {} : { body });
        assert.equal(res.status, 404, `${method} ${path}: ${res.text}`);
        assert.equal(res.body.code, 'NOT_FOUND');
      }
    }
    for (const id of [theirs.launch.id, 'no-such-launch']) {
      for (const [method, suffix, body] of [
        ['GET', ''], ['GET', '/logs'], ['GET', '/discussion-messages'], ['POST', '/abort', {}], ['POST', '/review', {}], ['POST', '/synthesize', {}], ['POST', '/chat', { message: 'hi' }],
      ] as Array<[string, string, unknown?]>) {
        const res = await f.server.api(method, `/api/council-launches/${id}${suffix}`, body === undefined ? {} : { body });
        assert.equal(res.status, 404, `${method} ${suffix}: ${res.text}`);
      }
    }
    const mine = await f.server.api('GET', `/api/council-launches?councilId=${theirs.council.id}`);
    assert.deepEqual(mine.body.launches, []);
    // Their launch is untouched, and its stream is not ours to subscribe to.
    assert.equal((await f.get(theirs.launch.id, other.owner)).stage, 'completed');
    const ws = await f.server.ws();
    ws.send({ type: 'subscribe', launchId: theirs.launch.id, since: 0 });
    const refused = await ws.next((m) => m.type === 'error' || m.type === 'subscribed');
    assert.equal(refused.type, 'error');
    assert.match(refused.message, /not found/);
    assert.ok(!ws.messages.some((m) => String(m.type).startsWith('council_')));
    await ws.close();
    const client = await mcpClient(f.server);
    try {
      const res = await callTool(client, 'svc_launch_council', { council_id: theirs.council.id, prompt: 'x' });
      assert.equal(res.isError, true);
      assert.match(res.text, /not found/);
    } finally {
      await client.close();
    }
  });

  it('lets a viewer read but not change councils, and refuses a delete while a launch runs', async () => {
    const council = await f.council({ members: ids });
    const viewer = await registerTenant(f.server, 'viewers');
    const vc = await f.council({ members: await f.members(['ZETA'], viewer.owner) }, viewer.owner);
    assert.equal((await f.server.api('GET', `/api/councils/${vc.id}`, { key: viewer.viewer })).status, 200);
    assert.equal((await f.server.api('POST', `/api/councils/${vc.id}/launch`, { key: viewer.viewer, body: { prompt: 'x' } })).status, 403);
    assert.equal((await f.server.api('DELETE', `/api/councils/${vc.id}`, { key: viewer.viewer })).status, 403);
    f.override = (_tag, stage) => (stage === 'responding' ? { hang: true } : undefined);
    const running = await f.launch(council.id);
    const refused = await f.server.api('DELETE', `/api/councils/${council.id}`);
    assert.equal(refused.status, 409);
    assert.match(refused.body.error, /has a launch in progress/);
    assert.equal((await f.post(`/api/council-launches/${running.id}/abort`)).status, 200);
    f.override = () => undefined;
    assert.equal((await f.server.api('DELETE', `/api/councils/${council.id}`)).status, 204);
    // The launch outlives its council.
    assert.equal((await f.get(running.id)).councilId, council.id);
  });
});
