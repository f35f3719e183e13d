// A council of three through every stage: answers, two discussion rounds, votes with reasons, each
// member's turn reserved before each stage, the chair's synthesis with the vote breakdown; the WebSocket events in order; chat after completion;
// svc_launch_council through the MCP SDK client.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { callTool, mcpClient } from '../agents/support.js';
import { waitFor } from '../helpers/wait.js';
import { councilSuite, stageOf, tagOf } from './support.js';

describe('a council of three', () => {
  const suite = councilSuite();

  it('goes through every stage, records each vote with its reason, and the chair writes the final answer', async () => {
    suite.f.override = (tag, stage) => (stage === 'reviewing' && tag === 'GAMMA' ? 'GAMMA is not convinced.\nVOTE: REJECT\nREASON: 42 needs a proof.' : undefined);
    const council = await suite.f.council({ members: suite.ids, chairId: suite.ids[1], rounds: 2, questionTemplate: 'Council question: {{prompt}}' });
    const launch = await suite.f.launch(council.id);
    assert.equal(launch.stage, 'responding');
    assert.deepEqual(launch.members.map((m: any) => m.agentId), suite.ids);
    const ws = await suite.f.server.ws();
    ws.send({ type: 'subscribe', launchId: launch.id, since: 0 });
    await ws.next((m) => m.type === 'subscribed');

    const done = await suite.f.until(launch.id, 'the launch to complete', (l) => l.stage === 'completed');
    assert.equal(done.stageState, 'done');
    assert.equal(done.synthesizerId, suite.ids[1]);
    assert.match(done.result, /written by BETA: the answer is 42\./);
    assert.match(done.result, /Votes: 2 approve, 1 reject, 0 abstain\.$/);
    assert.deepEqual(done.voteBreakdown, { approve: 2, reject: 1, abstain: 0, invalid: 0 });
    // Its agreement (2 of 3 valid votes on one side) is an outcome the feedback extension counts.
    const outcomes = await waitFor('the council outcome to be counted', async () => {
      const m = (await suite.f.h.server.api('GET', '/api/feedback/metrics')).body;
      return m.councils.concluded >= 1 ? m.councils : undefined;
    });
    assert.equal(outcomes.meanAgreement, 0.667);
    const gamma = done.votes.find((v: any) => v.agentId === suite.ids[2]);
    assert.deepEqual([gamma.vote, gamma.reason], ['reject', '42 needs a proof.']);
    assert.deepEqual(done.votes.find((v: any) => v.agentId === suite.ids[0]).reason, 'ALPHA finds 42 well argued.');
    // Each member answered in one session of its own; the chair synthesized in its session.
    const sessions = done.members.map((m: any) => m.sessionId);
    assert.equal(new Set(sessions).size, 3);
    assert.equal(done.synthesisSessionId, sessions[1]);
    // Each member's turn was reserved before each stage and its session answered on it.
    for (const [i, agentId] of suite.ids.entries()) {
      const { wallet } = (await suite.f.server.api('GET', `/api/agents/${agentId}/balance`)).body;
      const entries = (await suite.f.server.api('GET', `/api/wallets/${wallet}/messages?limit=200`)).body.messages;
      // One hold per stage the member answered (responding, two discussion rounds, reviewing; the chair also
      // synthesizing), made for the launch, each closed by the turn that answered on it: nothing reserved
      // twice, nothing left held.
      const holds = entries.filter((e: any) => e.kind === 'reserve' && e.reason === `turn of session council-launch-${launch.id}`);
      assert.equal(holds.length, i === 1 ? 5 : 4, `agent ${i}: ${JSON.stringify(entries)}`);
      for (const hold of holds) assert.ok(entries.some((e: any) => e.kind === 'commit' && e.reference === hold.reference), `hold ${hold.reference} was not closed by a turn`);
      assert.ok(!entries.some((e: any) => e.kind === 'reserve' && e.reason !== `turn of session council-launch-${launch.id}` && e.createdAt >= launch.createdAt));
      assert.equal((await suite.f.server.api('GET', `/api/agents/${agentId}/balance`)).body.reserved, 0);
    }

    const messages = await suite.f.messages(launch.id);
    const count = (kind: string) => messages.filter((m) => m.kind === kind).length;
    assert.deepEqual([count('response'), count('discussion'), count('review'), count('synthesis')], [3, 6, 3, 1]);
    assert.deepEqual(messages.filter((m) => m.kind === 'discussion').map((m) => m.round).sort(), [1, 1, 1, 2, 2, 2]);

    // The template framed the question; in a discussion round a member sees the others' answers, not its own.
    const asked = suite.f.h.anthropic.requests.filter((r) => r.path === '/v1/messages');
    assert.ok(asked.some((r) => stageOf(r) === 'responding' && JSON.stringify(r.body.messages).includes('Council question: What is the answer?')));
    const alphaRound1 = asked.find((r) => tagOf(r) === 'ALPHA' && stageOf(r) === 'discussing')!;
    const lastUser = JSON.stringify(alphaRound1.body.messages.at(-1));
    assert.match(lastUser, /BETA thinks the answer is 42/);
    assert.match(lastUser, /GAMMA thinks the answer is 42/);
    assert.doesNotMatch(lastUser, /ALPHA thinks/);

    // The WebSocket carried every event, in order, identical to what the REST lists serve.
    await ws.next((m) => m.type === 'council_stage_change' && m.stage === 'completed', 10_000);
    const streamed = [...ws.messages].filter((m) => String(m.type).startsWith('council_'));
    const all = [...(await suite.f.logs(launch.id)), ...messages].sort((a, b) => a.seq - b.seq);
    const completedAt = all.findIndex((e) => e.type === 'council_stage_change' && e.stage === 'completed');
    assert.deepEqual(streamed.map((e) => e.seq), all.slice(0, completedAt).map((e) => e.seq));
    assert.deepEqual(all.map((e) => e.seq), all.map((_, i) => i + 1));
    const stages = all.filter((e) => e.type === 'council_stage_change').map((e) => e.stage);
    assert.deepEqual(stages, ['responding', 'discussing', 'reviewing', 'synthesizing', 'completed']);
    assert.ok(all.some((e) => e.type === 'council_log' && /discussion round 2 of 2/.test(e.message)));
    assert.deepEqual(streamed[1], all[1]);

    // Chat continues with the synthesizer, in the same session.
    suite.f.override = (tag, stage) => (stage === 'chat' ? `${tag} says: 42 because of the votes.` : undefined);
    const chat = await suite.f.post(`/api/council-launches/${launch.id}/chat`, { message: 'Why 42?' });
    assert.equal(chat.status, 200, chat.text);
    assert.equal(chat.body.reply, 'BETA says: 42 because of the votes.');
    const lastAsked = suite.f.h.anthropic.requests.filter((r) => r.path === '/v1/messages').at(-1)!;
    assert.match(JSON.stringify(lastAsked.body.messages), /Synthesis stage/);
    const after = await suite.f.messages(launch.id);
    assert.deepEqual(after.slice(-2).map((m) => m.kind), ['chat_question', 'chat_answer']);
    await ws.close();
  });

  it('lists launches of a council and of the tenant, filtered and paged', async () => {
    const council = await suite.f.council({ members: suite.ids.slice(0, 2), rounds: 0 });
    const first = await suite.f.launch(council.id);
    const second = await suite.f.launch(council.id, { prompt: 'And again?' });
    await suite.f.until(second.id, 'the second launch to complete', (l) => l.stage === 'completed');
    const ofCouncil = await suite.f.server.api('GET', `/api/councils/${council.id}/launches`);
    assert.deepEqual(ofCouncil.body.launches.map((l: any) => l.id).sort(), [first.id, second.id].sort());
    const filtered = await suite.f.server.api('GET', `/api/council-launches?councilId=${council.id}&limit=1`);
    assert.equal(filtered.body.launches.length, 1);
    assert.equal(filtered.body.hasMore, true);
    const all = await suite.f.server.api('GET', '/api/council-launches?limit=200');
    assert.ok(all.body.launches.length >= 3);
    assert.equal(all.body.launches.find((l: any) => l.id === first.id).councilId, council.id);
  });

  it('svc_launch_council launches through MCP, and waits for the final answer when asked', async () => {
    const council = await suite.f.council({ members: suite.ids, rounds: 1 });
    const client = await mcpClient(suite.f.server);
    try {
      const quick = await callTool(client, 'svc_launch_council', { council_id: council.id, prompt: 'Quick one?' });
      assert.equal(quick.isError, false, quick.text);
      assert.equal(typeof quick.value.launchId, 'string');
      assert.equal((await suite.f.get(quick.value.launchId)).councilId, council.id);
      // Not needed any further: stopped, so that its members' sessions do not run beside the next launch.
      assert.equal((await suite.f.post(`/api/council-launches/${quick.value.launchId}/abort`)).status, 200);
      const waited = await callTool(client, 'svc_launch_council', { council_id: council.id, prompt: 'Wait for it?', wait: true, timeout_seconds: 120 });
      assert.equal(waited.isError, false, waited.text);
      assert.equal(waited.value.stage, 'completed');
      assert.match(waited.value.result, /the answer is 42/);
      assert.equal(waited.value.votes.length, 3);
      const unknown = await callTool(client, 'svc_launch_council', { council_id: 'no-such-council', prompt: 'x' });
      assert.equal(unknown.isError, true);
      assert.match(unknown.text, /council no-such-council not found/);
      const bad = await callTool(client, 'svc_launch_council', { council_id: council.id });
      assert.equal(bad.isError, true);
      assert.match(bad.text, /prompt/);
    } finally {
      await client.close();
    }
  });
});
