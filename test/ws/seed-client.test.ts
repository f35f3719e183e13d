// A WebSocket client written from the seed alone: it knows `subscribe`/`unsubscribe` with a sessionId
// and the seed's action messages, never launchId, agentId, workTaskId or chainchat. It still receives
// each of the seed's 13 server message types it may see (council, balance, work-task and chainchat
// events of its own tenant unasked), and none of another tenant's; `welcome`
// says what can be subscribed to; a keyed subscribe narrows a stream to the keys it names.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { instanceMembers, registerTenant, type Tenant } from '../agents/support.js';
import { Participant, setUpChainchat } from '../chainchat/support.js';
import { startCouncils, type CouncilFixture } from '../councils/support.js';
import { startFakeChain, type FakeChain } from '../fakes/algod.js';
import type { TestSocket } from '../helpers/server.js';

describe('a seed-only WebSocket client', () => {
  let f: CouncilFixture;
  let chain: FakeChain;
  let a: Tenant;
  let b: Tenant;
  let members: string[];
  const sockets: TestSocket[] = [];
  const open = async (key: string) => {
    const ws = await f.server.ws({ key });
    sockets.push(ws);
    await ws.next((m) => m.type === 'welcome');
    return ws;
  };

  before(async () => {
    chain = await startFakeChain();
    f = await startCouncils({ env: { ROOST_ALGOD_URL: chain.algodUrl, ROOST_INDEXER_URL: chain.indexerUrl, ROOST_ALGOD_TOKEN: chain.token, ROOST_EXT_CHAINCHAT_POLL_MS: '100' } });
    a = await instanceMembers(f.server);
    b = await registerTenant(f.server, 'seed-ws-other');
    members = await f.members(['ALPHA', 'BETA']);
  });
  after(async () => {
    await Promise.all(sockets.map((s) => s.close()));
    await f.h.close();
    await chain.close();
  });

  it('welcome lists each stream with its key, its message types and whether it arrives unasked', async () => {
    const ws = await f.server.ws({ key: a.viewer });
    sockets.push(ws);
    const welcome = await ws.next((m) => m.type === 'welcome');
    const byKey = new Map(welcome.streams.map((s: any) => [s.key, s]));
    assert.deepEqual(byKey.get('sessionId'), { key: 'sessionId', types: ['session_event', 'session_status', 'approval_request'], since: true, tenantWide: false });
    assert.deepEqual(byKey.get('launchId'), { key: 'launchId', types: ['council_stage_change', 'council_log', 'council_discussion_message'], since: true, tenantWide: true });
    assert.equal((byKey.get('agentId') as any).tenantWide, true);
    assert.ok((byKey.get('agentId') as any).types.includes('agent_balance'));
    assert.deepEqual(byKey.get('workTaskId'), { key: 'workTaskId', types: ['work_task_update'], since: false, tenantWide: true });
    assert.deepEqual(byKey.get('chainchat'), { key: 'chainchat', types: ['chainchat_message'], since: false, tenantWide: true });
  });

  it('receives its tenant\'s council, balance, work-task, chainchat and chat events without naming a key; another tenant receives none', async () => {
    const watcher = await open(a.viewer);
    const actor = await open(a.operator);
    const foreign = await open(b.owner);

    // A council launch: its stage changes, log lines and discussion messages reach every client of the tenant.
    const council = await f.council({ members, chairId: members[0], rounds: 1 });
    const launch = await f.launch(council.id);
    await watcher.next((m) => m.type === 'council_stage_change' && m.launchId === launch.id && m.stage === 'completed', 60_000);
    for (const type of ['council_log', 'council_discussion_message']) assert.ok(watcher.messages.some((m) => m.type === type && m.launchId === launch.id), type);

    // A credit change by the seed's own agent_reward. The sockets may still hold balance events of the
    // council's turns (a hold, its release) and of the agents' first grants, each as it arrived there:
    // the reward's is the one with the balance its sender was told.
    actor.send({ type: 'agent_reward', agentId: members[0], microUnits: 321 });
    const { balance } = await actor.next((m) => m.type === 'agent_rewarded' && m.agentId === members[0]);
    for (const ws of [watcher, actor]) await ws.next((m) => m.type === 'agent_balance' && m.agentId === members[0] && m.balance === balance);

    // A work task: its updates reach the tenant's clients, not only its creator.
    const project = await f.h.project();
    const git = (...args: string[]) => execFileSync('git', ['-C', project.dir, '-c', 'user.name=t', '-c', 'user.email=t@127.0.0.1', ...args]);
    git('init', '-q', '-b', 'main');
    git('commit', '-q', '--allow-empty', '-m', 'initial');
    // An origin naming a code-host repository (owner/name); the task is cancelled before it pushes.
    git('remote', 'add', 'origin', join(project.dir, '.remote', 'acme', 'widgets.git'));
    const task = await f.server.api('POST', '/api/work-tasks', { body: { agentId: members[1], description: 'Seed client sees this', projectId: project.id } });
    assert.equal(task.status, 201, task.text);
    await f.server.api('POST', `/api/work-tasks/${task.body.id}/cancel`, { body: {} });
    await watcher.next((m) => m.type === 'work_task_update' && m.workTaskId === task.body.id, 15_000);

    // An on-chain note from a stranger is refused, and the refusal is a chainchat_message of the tenant.
    const roost = (await setUpChainchat(f.server, a.owner)).address;
    chain.fund(roost, 50_000_000);
    const stranger = new Participant(chain);
    await stranger.send(roost, { mode: 'P', psk: Buffer.alloc(32, 7) }, 'let me in');
    await watcher.next((m) => m.type === 'chainchat_message' && m.participant === stranger.address && m.direction === 'refused', 15_000);

    // The seed's chat_send answers its sender (chat_stream …); no other client sees a chat.
    actor.send({ type: 'chat_send', agentId: members[1], content: 'hello' });
    await actor.next((m) => m.type === 'chat_stream' && m.done === true, 30_000);

    // The other tenant's own events reach it, and only it.
    const theirs = (await f.server.api('POST', '/api/agents', { key: b.owner, body: { name: 'theirs', model: 'claude-sonnet-5-5' } })).body;
    foreign.send({ type: 'agent_reward', agentId: theirs.id, microUnits: 5 });
    await foreign.next((m) => m.type === 'agent_balance' && m.agentId === theirs.id);
    // A change made after that event reaches the watcher after it, had it been sent.
    const fence = await f.server.api('PUT', `/api/agents/${members[0]}`, { key: a.operator, body: { description: 'the fence' } });
    assert.equal(fence.status, 200, fence.text);
    await watcher.next((m) => m.type === 'agent_updated' && m.agent?.description === 'the fence');
    assert.ok(!watcher.messages.some((m) => m.type === 'agent_balance' && m.agentId === theirs.id), 'never another tenant\'s balance');
    assert.ok(!watcher.messages.some((m) => String(m.type).startsWith('chat_')), 'a chat is its sender\'s');
    const leaked = foreign.messages.filter((m) => /^(council_|work_task_|chat_|chainchat_)/.test(String(m.type)) || (m.type === 'agent_balance' && m.agentId !== theirs.id));
    assert.deepEqual(leaked, []);
  });

  it('gets the session types for the sessions it subscribed to, the chat types for its own chat, and error', async () => {
    const watcher = await open(a.viewer);
    const actor = await open(a.operator);
    const project = await f.h.project();
    const asking = await f.h.agent({ permissionMode: 'default' });
    const session = await f.h.session({ agentId: asking.id, projectId: project.id }, a.operator);
    f.h.anthropic.setScript([{ toolUses: [{ name: 'write_file', input: { path: 'a.txt', content: 'x' } }] }, 'Written.', { thinking: 'Hmm.', text: 'Hi.', toolUses: [{ name: 'list_dir', input: {} }] }, 'Nothing to see.']);
    actor.send({ type: 'subscribe', sessionId: session.id });
    await actor.next((m) => m.type === 'subscribed' && m.sessionId === session.id);
    actor.send({ type: 'send_message', sessionId: session.id, content: 'write a file' });
    const asked = await actor.next((m) => m.type === 'approval_request' && m.sessionId === session.id, 15_000);
    actor.send({ type: 'approval_response', requestId: asked.request.id, behavior: 'allow' });
    await actor.next((m) => m.type === 'session_event' && m.sessionId === session.id, 15_000);
    await f.h.until(session.id, (x) => x.turns >= 2 && !x.busy, 15_000, a.operator);
    assert.equal((await f.server.api('POST', `/api/sessions/${session.id}/stop`, { key: a.operator, body: {} })).status, 200);
    await actor.next((m) => m.type === 'session_status' && m.sessionId === session.id, 15_000);

    const chatty = await f.h.agent({ permissionMode: 'full-auto' });
    actor.send({ type: 'chat_send', agentId: chatty.id, content: 'hello' });
    await actor.next((m) => m.type === 'chat_stream' && m.done === true, 30_000);
    for (const type of ['chat_thinking', 'chat_tool_use']) assert.ok(actor.messages.some((m) => m.type === type), type);

    actor.send({ type: 'subscribe', sessionId: 'no-such-session' });
    assert.match((await actor.next((m) => m.type === 'error')).message, /not found/);
    // Seed rule 1: session messages only for the sessions a client subscribed to.
    assert.ok(!watcher.messages.some((m) => /^(session_|approval_request|chat_)/.test(String(m.type))));
  });

  it('a keyed subscribe narrows that stream to the keys it names, and leaves the others tenant-wide', async () => {
    const narrow = await open(a.viewer);
    narrow.send({ type: 'subscribe', agentId: members[0] });
    await narrow.next((m) => m.type === 'subscribed' && m.agentId === members[0]);
    const actor = await open(a.operator);
    actor.send({ type: 'agent_reward', agentId: members[1], microUnits: 2 });
    await actor.next((m) => m.type === 'agent_rewarded');
    actor.send({ type: 'agent_reward', agentId: members[0], microUnits: 3 });
    // Events of one stream arrive in order: the first one, had it been sent, would be here already.
    await narrow.next((m) => m.type === 'agent_balance' && m.agentId === members[0]);
    assert.ok(!narrow.messages.some((m) => m.type === 'agent_balance' && m.agentId === members[1]), 'narrowed to the agent it named');
  });
});
