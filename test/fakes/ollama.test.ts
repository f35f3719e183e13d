// The fake Ollama server, driven with plain fetch the way Ollama's own clients talk to it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startFakeOllama, type FakeOllama } from './ollama.js';

async function ndjson(response: Response): Promise<any[]> {
  return (await response.text())
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

const post = (url: string, body: unknown, method = 'POST') =>
  fetch(url, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('fake Ollama API', () => {
  let fake: FakeOllama;
  before(async () => {
    fake = await startFakeOllama({ models: ['llama3.2', 'qwen2.5-coder:7b'], registry: ['mistral', 'phi4:14b'] });
  });
  after(() => fake.close());

  it('reports its version, that it runs, and the installed models', async () => {
    assert.equal(await (await fetch(`${fake.url}/`)).text(), 'Ollama is running');
    assert.deepEqual(await (await fetch(`${fake.url}/api/version`)).json(), { version: '0.9.0' });
    const tags = (await (await fetch(`${fake.url}/api/tags`)).json()) as { models: Array<Record<string, any>> };
    assert.deepEqual(
      tags.models.map((m) => m.name),
      ['llama3.2:latest', 'qwen2.5-coder:7b'],
    );
    const first = tags.models[0]!;
    assert.equal(first.model, 'llama3.2:latest');
    assert.match(first.digest, /^[0-9a-f]{64}$/);
    assert.equal(first.details.format, 'gguf');
    assert.equal(typeof first.size, 'number');
  });

  it('streams a chat reply as NDJSON ending in a done message with counts', async () => {
    const text = 'Streaming from the fake, in several pieces of text.';
    fake.setScript([text]);
    const response = await post(`${fake.url}/api/chat`, { model: 'llama3.2', messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'application/x-ndjson');
    const lines = await ndjson(response);
    assert.ok(lines.length > 2);
    const last = lines.at(-1);
    assert.equal(last.done, true);
    assert.equal(last.done_reason, 'stop');
    assert.ok(last.prompt_eval_count > 0 && last.eval_count > 0);
    assert.ok(lines.slice(0, -1).every((l) => l.done === false && l.message.role === 'assistant'));
    assert.equal(lines.map((l) => l.message.content).join(''), text);
    assert.equal(fake.requests.at(-1)!.body.messages[0].content, 'hi');
  });

  it('answers stream:false with one message, thinking and tool calls included', async () => {
    fake.setScript([{ text: '', thinking: 'need the weather', toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }], evalCount: 9 }]);
    const response = await post(`${fake.url}/api/chat`, {
      model: 'llama3.2',
      stream: false,
      messages: [{ role: 'user', content: 'weather?' }],
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }],
    });
    const body = (await response.json()) as Record<string, any>;
    assert.equal(body.done, true);
    assert.equal(body.eval_count, 9);
    assert.equal(body.message.thinking, 'need the weather');
    assert.deepEqual(body.message.tool_calls, [{ function: { name: 'get_weather', arguments: { city: 'Oslo' } } }]);
  });

  it('streams tool calls in their own chunk', async () => {
    fake.setScript([{ toolCalls: [{ name: 'ls', arguments: { dir: '.' } }] }]);
    const lines = await ndjson(await post(`${fake.url}/api/chat`, { model: 'qwen2.5-coder:7b', messages: [{ role: 'user', content: 'ls' }] }));
    const withCalls = lines.filter((l) => l.message?.tool_calls);
    assert.equal(withCalls.length, 1);
    assert.deepEqual(withCalls[0].message.tool_calls, [{ function: { name: 'ls', arguments: { dir: '.' } } }]);
    assert.equal(lines.at(-1).done, true);
  });

  it('refuses unknown models, bad bodies and unknown routes the way Ollama does', async () => {
    const missing = await post(`${fake.url}/api/chat`, { model: 'nope', messages: [] });
    assert.equal(missing.status, 404);
    assert.deepEqual(await missing.json(), { error: 'model "nope" not found, try pulling it first' });
    const noModel = await post(`${fake.url}/api/chat`, { messages: [] });
    assert.equal(noModel.status, 400);
    assert.deepEqual(await noModel.json(), { error: 'model is required' });
    const garbage = await fetch(`${fake.url}/api/chat`, { method: 'POST', body: '{{{' });
    assert.equal(garbage.status, 400);
    assert.match(((await garbage.json()) as { error: string }).error, /invalid request body/);
    const unknown = await fetch(`${fake.url}/api/unknown`);
    assert.equal(unknown.status, 404);
    assert.equal(await unknown.text(), '404 page not found');
  });

  it('answers scripted errors as a status or as an error line mid-stream', async () => {
    fake.setScript([{ error: { status: 500, message: 'llama runner process has terminated' } }]);
    const failed = await post(`${fake.url}/api/chat`, { model: 'llama3.2', messages: [{ role: 'user', content: 'x' }] });
    assert.equal(failed.status, 500);
    assert.deepEqual(await failed.json(), { error: 'llama runner process has terminated' });

    fake.setScript([{ thinking: 'hmm', error: { status: 500, message: 'out of memory', midStream: true } }]);
    const lines = await ndjson(await post(`${fake.url}/api/chat`, { model: 'llama3.2', messages: [{ role: 'user', content: 'x' }] }));
    assert.equal(lines[0].message.thinking, 'hmm');
    assert.deepEqual(lines.at(-1), { error: 'out of memory' });
  });

  it('pulls a model with streamed progress, then shows, runs, lists as running and deletes it', async () => {
    const lines = await ndjson(await post(`${fake.url}/api/pull`, { model: 'mistral' }));
    assert.equal(lines[0].status, 'pulling manifest');
    const progress = lines.filter((l) => l.digest);
    assert.ok(progress.length >= 2);
    assert.ok(progress.every((l) => l.total === progress[0].total && /^sha256:[0-9a-f]{64}$/.test(l.digest)));
    const completed = progress.map((l) => l.completed);
    assert.deepEqual(completed, [...completed].sort((a, b) => a - b));
    assert.equal(completed.at(-1), progress[0].total);
    assert.deepEqual(lines.slice(-3).map((l) => l.status), ['verifying sha256 digest', 'writing manifest', 'success']);
    assert.ok(fake.installed().includes('mistral:latest'));

    const show = (await (await post(`${fake.url}/api/show`, { model: 'mistral' })).json()) as Record<string, any>;
    assert.equal(show.details.format, 'gguf');
    assert.ok(show.capabilities.includes('completion'));

    fake.setScript(['ready']);
    const chat = (await (await post(`${fake.url}/api/chat`, { model: 'mistral', stream: false, messages: [{ role: 'user', content: 'x' }] })).json()) as any;
    assert.equal(chat.message.content, 'ready');
    const ps = (await (await fetch(`${fake.url}/api/ps`)).json()) as { models: Array<{ name: string; expires_at: string }> };
    assert.ok(ps.models.some((m) => m.name === 'mistral:latest' && !Number.isNaN(Date.parse(m.expires_at))));

    const deleted = await post(`${fake.url}/api/delete`, { model: 'mistral' }, 'DELETE');
    assert.equal(deleted.status, 200);
    assert.ok(!fake.installed().includes('mistral:latest'));
    const again = await post(`${fake.url}/api/delete`, { model: 'mistral' }, 'DELETE');
    assert.equal(again.status, 404);
    assert.deepEqual(await again.json(), { error: "model 'mistral' not found" });
    const gone = await post(`${fake.url}/api/show`, { model: 'mistral' });
    assert.equal(gone.status, 404);
  });

  it('fails a pull of a model the registry does not have, streamed or not', async () => {
    const lines = await ndjson(await post(`${fake.url}/api/pull`, { model: 'not-there' }));
    assert.deepEqual(lines.at(-1), { error: 'pull model manifest: file does not exist' });
    const plain = await post(`${fake.url}/api/pull`, { model: 'not-there', stream: false });
    assert.equal(plain.status, 500);
    const ok = await post(`${fake.url}/api/pull`, { name: 'phi4:14b', stream: false });
    assert.deepEqual(await ok.json(), { status: 'success' });
    assert.ok(fake.installed().includes('phi4:14b'));
  });

  it('hangs until the client aborts, and delays when told', async () => {
    fake.setScript([{ hang: true }]);
    const body = JSON.stringify({ model: 'llama3.2', messages: [{ role: 'user', content: 'x' }] });
    const outcome = await fetch(`${fake.url}/api/chat`, { method: 'POST', body, signal: AbortSignal.timeout(200) }).then(
      () => 'answered',
      (e: Error) => e.name,
    );
    assert.equal(outcome, 'TimeoutError');

    fake.setScript([{ text: 'late', delayMs: 150 }]);
    const started = Date.now();
    const lines = await ndjson(await fetch(`${fake.url}/api/chat`, { method: 'POST', body }));
    assert.ok(Date.now() - started >= 140);
    assert.equal(lines.map((l) => l.message.content).join(''), 'late');
  });
});
