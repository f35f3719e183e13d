import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startHarness, type Harness } from './harness.js';

describe('session conversations against the fake providers', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  it('runs a multi-turn conversation with tool calls, stored and streamed in order (Anthropic)', async () => {
    h.anthropic.setScript([
      { text: 'Let me look around.', toolUses: [{ name: 'list_dir', input: {} }] },
      { toolUses: [{ name: 'write_file', input: { path: 'notes.txt', content: 'hello' } }, { name: 'read_file', input: { path: 'notes.txt' } }] },
      'All done: notes.txt says hello.',
      'Second answer.',
    ]);
    const project = await h.project();
    const agent = await h.agent({ permissionMode: 'full-auto', systemPrompt: 'You write notes.' });
    const session = await h.session({ agentId: agent.id, projectId: project.id });
    assert.equal(session.status, 'running');
    assert.ok(Number.isInteger(session.pid) && session.pid > 0);
    const ws = await h.subscribe(session.id);
    const seen = record(ws.socket);

    const posted = await h.server.api('POST', `/api/sessions/${session.id}/messages`, { body: { content: 'Write notes.txt' } });
    assert.equal(posted.status, 202);
    await ws.next((m) => m.type === 'session_event' && m.event.type === 'turn_end' && m.event.done, 15_000);
    ws.send({ type: 'send_message', sessionId: session.id, content: 'And now?' });
    await ws.next((m) => m.type === 'session_event' && m.event.type === 'assistant_message' && m.event.text === 'Second answer.', 15_000);
    await ws.next((m) => m.type === 'session_event' && m.event.type === 'turn_end' && m.event.turn === 4, 15_000);

    assert.equal(await readFile(join(project.dir, 'notes.txt'), 'utf8'), 'hello');
    const stored = await h.events(session.id);
    const seqs = stored.map((e: any) => e.seq);
    assert.deepEqual(seqs, seqs.map((_: number, i: number) => i + 1), 'stored events are numbered 1..n without gaps');
    // Every event streamed to the subscriber is stored, identical, and arrived in order.
    const streamed = seen.filter((m) => m.type === 'session_event').map((m) => m.event);
    assert.ok(streamed.length > 20);
    assert.deepEqual(streamed.map((e) => e.seq), stored.slice(stored.length - streamed.length).map((e: any) => e.seq), 'streamed in order, none missing');
    const bySeq = new Map(stored.map((e: any) => [e.seq, e]));
    for (const e of streamed) assert.deepEqual(e, bySeq.get(e.seq));
    const types = stored.map((e: any) => e.type);
    for (const t of ['runner_started', 'user_message', 'turn_start', 'text_delta', 'tool_use', 'approval', 'tool_result', 'assistant_message', 'turn_end']) assert.ok(types.includes(t), `has a ${t} event`);
    assert.ok(types.indexOf('text_delta') < types.indexOf('assistant_message'));

    const messages = await h.messages(session.id);
    assert.deepEqual(messages.map((m: any) => m.role), ['user', 'assistant', 'tool', 'assistant', 'tool', 'tool', 'assistant', 'user', 'assistant']);
    assert.equal(messages[0].content, 'Write notes.txt');
    assert.equal(messages[1].toolUses[0].name, 'list_dir');
    assert.equal(messages[4].content, 'wrote 5 bytes to notes.txt');
    assert.equal(messages[5].content, 'hello');
    assert.equal(messages[6].content, 'All done: notes.txt says hello.');
    assert.equal(messages[8].content, 'Second answer.');

    // The model saw the tool results and was offered the local and the server's MCP tools.
    const calls = h.anthropic.requests.filter((r) => r.path === '/v1/messages');
    const third = calls.at(-2)!.body;
    const results = third.messages.at(-1).content;
    assert.deepEqual(results.map((b: any) => b.type), ['tool_result', 'tool_result']);
    assert.equal(results[1].content, 'hello');
    const tools = third.tools.map((t: any) => t.name);
    for (const name of ['read_file', 'write_file', 'edit_file', 'list_dir', 'run_command', 'svc_extend_timeout']) assert.ok(tools.includes(name), `offers ${name}`);
    assert.equal(third.system, 'You write notes.');
    assert.equal(third.stream, true);

    const done = await h.get(session.id);
    assert.equal(done.turns, 4);
    assert.equal(done.status, 'running');
    assert.ok(done.cost > 0, 'turns are charged through credits');
    assert.ok(done.usage.inputTokens > 0 && done.usage.outputTokens > 0);
    await ws.close();
  });

  it('drives an Ollama model with tool calls over /api/chat', async () => {
    h.ollama.setScript([{ text: 'Writing.', toolCalls: [{ name: 'write_file', arguments: { path: 'o.txt', content: 'from ollama' } }] }, 'Wrote o.txt.']);
    const project = await h.project();
    const agent = await h.agent({ provider: 'ollama', model: 'llama3.2', permissionMode: 'acceptEdits' });
    const session = await h.session({ agentId: agent.id, projectId: project.id, initialPrompt: 'write o.txt' });
    await h.until(session.id, (s) => s.turns === 2 && !s.busy);
    assert.equal(await readFile(join(project.dir, 'o.txt'), 'utf8'), 'from ollama');
    const messages = await h.messages(session.id);
    assert.deepEqual(messages.map((m: any) => [m.role, m.content]), [
      ['user', 'write o.txt'],
      ['assistant', 'Writing.'],
      ['tool', 'wrote 11 bytes to o.txt'],
      ['assistant', 'Wrote o.txt.'],
    ]);
    const second = h.ollama.requests.filter((r) => r.path === '/api/chat').at(-1)!.body;
    assert.equal(second.stream, true);
    assert.ok(second.tools.some((t: any) => t.function.name === 'write_file'));
    assert.deepEqual(second.messages.at(-1), { role: 'tool', content: 'wrote 11 bytes to o.txt', tool_name: 'write_file' });
  });

  it('streams a chat over the WebSocket with chat_send', async () => {
    h.anthropic.setScript([{ thinking: 'Hmm.', text: 'Hi there, how can I help?', toolUses: [{ name: 'list_dir', input: {} }] }, 'Nothing to see.']);
    const agent = await h.agent({ permissionMode: 'full-auto' });
    const ws = await h.server.ws();
    ws.send({ type: 'chat_send', agentId: agent.id, content: 'hello' });
    const done = await ws.next((m) => m.type === 'chat_stream' && m.done === true, 15_000);
    assert.equal(done.agentId, agent.id);
    const chunks = ws.messages.filter((m) => m.type === 'chat_stream').map((m) => m.chunk).join('');
    assert.equal(chunks, 'Hi there, how can I help?Nothing to see.');
    assert.ok(ws.messages.some((m) => m.type === 'chat_thinking' && m.thinking === 'Hmm.'));
    assert.ok(ws.messages.some((m) => m.type === 'chat_tool_use' && m.phase === 'call' && m.toolName === 'list_dir'));
    assert.ok(ws.messages.some((m) => m.type === 'chat_tool_use' && m.phase === 'result' && m.toolName === 'list_dir'));
    // The chat is a session of its own, listed with the others.
    const list = await h.server.api('GET', `/api/sessions?agentId=${agent.id}`);
    assert.equal(list.body.total, 1);
    assert.equal(list.body.sessions[0].source, 'web');

    h.anthropic.setScript(['Again.']);
    ws.send({ type: 'chat_send', agentId: agent.id, content: 'more' });
    await ws.next((m) => m.type === 'chat_stream' && m.done === true && m.chunk === '', 15_000);
    assert.equal((await h.server.api('GET', `/api/sessions?agentId=${agent.id}`)).body.total, 1, 'the same chat session is reused');
    await ws.close();
  });
});

/** Every message a socket receives from now on (next() takes matches out of TestSocket.messages). */
function record(socket: { on(event: 'message', listener: (data: Buffer) => void): unknown }): any[] {
  const all: any[] = [];
  socket.on('message', (data) => all.push(JSON.parse(data.toString())));
  return all;
}
