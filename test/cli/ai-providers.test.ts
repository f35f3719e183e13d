// The built provider clients (dist/lib/providers), shared with the agent runner, against the
// fake Anthropic and Ollama servers: streaming, usage, and every failure turned into an honest error.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { repoRoot } from '../helpers/paths.js';
import { FAKE_ANTHROPIC_KEY, startFakeAnthropic, type FakeAnthropic } from '../fakes/anthropic.js';
import { startFakeOllama, type FakeOllama } from '../fakes/ollama.js';

const { createProvider } = (await import(pathToFileURL(join(repoRoot, 'dist/lib/providers/index.js')).href)) as {
  createProvider: (name: string, options: Record<string, unknown>) => any;
};

const ask = (text = 'hello') => ({ system: 'be brief', messages: [{ role: 'user', content: text }], maxTokens: 64 });

describe('model provider clients', () => {
  let anthropic: FakeAnthropic;
  let ollama: FakeOllama;
  before(async () => {
    anthropic = await startFakeAnthropic();
    ollama = await startFakeOllama({ models: ['llama3.2'] });
  });
  after(async () => {
    await anthropic.close();
    await ollama.close();
  });

  const claude = (options: Record<string, unknown> = {}) =>
    createProvider('anthropic', { model: 'claude-sonnet-5-5', baseUrl: anthropic.url, apiKey: FAKE_ANTHROPIC_KEY, maxRetries: 0, ...options });
  const llama = (model = 'llama3.2', baseUrl = ollama.url) => createProvider('ollama', { model, baseUrl });

  it('Anthropic: streams text to onText and returns it whole with usage', async () => {
    const text = 'The review found nothing alarming in this change at all.';
    anthropic.setScript([{ text, usage: { input_tokens: 42, output_tokens: 13 } }]);
    const deltas: string[] = [];
    const result = await claude().complete({ ...ask(), onText: (d: string) => deltas.push(d) });
    assert.deepEqual(result, { text, usage: { inputTokens: 42, outputTokens: 13 }, stopReason: 'end_turn' });
    assert.ok(deltas.length > 1);
    assert.equal(deltas.join(''), text);
    const sent = anthropic.requests.at(-1)!.body;
    assert.equal(sent.system, 'be brief');
    assert.equal(sent.max_tokens, 64);
    assert.equal(sent.stream, true);
  });

  it('Anthropic: keeps only text blocks from an answer with thinking and tool use', async () => {
    anthropic.setScript([{ thinking: 'hmm', text: 'answer', toolUses: [{ name: 't', input: {} }] }]);
    const result = await claude().complete(ask());
    assert.equal(result.text, 'answer');
    assert.equal(result.stopReason, 'tool_use');
  });

  it('Anthropic: a missing key fails before any request, naming ANTHROPIC_API_KEY', () => {
    assert.throws(
      () => createProvider('anthropic', { model: 'm', baseUrl: anthropic.url }),
      (err: any) => err.code === 'PROVIDER_NOT_CONFIGURED' && /ANTHROPIC_API_KEY/.test(err.message),
    );
  });

  it('Anthropic: 429 is RATE_LIMITED, 500/529 and mid-stream errors are UPSTREAM_ERROR with the API message', async () => {
    anthropic.setScript([{ error: { status: 429, retryAfter: 0.01 } }]);
    await assert.rejects(claude().complete(ask()), (err: any) => err.code === 'RATE_LIMITED' && /429/.test(err.message));
    anthropic.setScript([{ error: { status: 529 } }]);
    await assert.rejects(claude().complete(ask()), (err: any) => err.code === 'UPSTREAM_ERROR' && /answered 529: overloaded_error: Overloaded/.test(err.message));
    anthropic.setScript([{ error: { status: 500, message: 'boom' } }]);
    await assert.rejects(claude().complete(ask()), (err: any) => err.code === 'UPSTREAM_ERROR' && /boom/.test(err.message));
    anthropic.setScript([{ text: 'x', error: { status: 529, midStream: true } }]);
    await assert.rejects(claude().complete(ask()), (err: any) => err.code === 'UPSTREAM_ERROR' && /overloaded_error/.test(err.message));
    const wrongKey = createProvider('anthropic', { model: 'm', baseUrl: anthropic.url, apiKey: 'sk-wrong', maxRetries: 0 });
    await assert.rejects(wrongKey.complete(ask()), (err: any) => err.code === 'UPSTREAM_ERROR' && /401: authentication_error/.test(err.message));
  });

  it('Anthropic: retries a 529 and succeeds when the SDK is allowed to', async () => {
    anthropic.setScript([{ error: { status: 529, retryAfter: 0.01 } }, 'second time lucky']);
    const result = await claude({ maxRetries: 2 }).complete(ask());
    assert.equal(result.text, 'second time lucky');
  });

  it('Anthropic: a deadline gives TIMEOUT, an abort CANCELLED, a dead address UPSTREAM_ERROR', async () => {
    anthropic.setScript([{ hang: true }]);
    await assert.rejects(claude().complete({ ...ask(), signal: AbortSignal.timeout(150) }), (err: any) => err.code === 'TIMEOUT');
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    await assert.rejects(claude().complete({ ...ask(), signal: controller.signal }), (err: any) => err.code === 'CANCELLED');
    const dead = await startFakeAnthropic();
    await dead.close();
    const unreachable = createProvider('anthropic', { model: 'm', baseUrl: dead.url, apiKey: 'k', maxRetries: 0 });
    await assert.rejects(unreachable.complete(ask()), (err: any) => err.code === 'UPSTREAM_ERROR' && /cannot reach anthropic/.test(err.message));
  });

  it('Ollama: streams NDJSON chat to onText with usage from the eval counts', async () => {
    ollama.setScript([{ text: 'Local models stream too, in pieces.', promptEvalCount: 30, evalCount: 8 }]);
    const deltas: string[] = [];
    const result = await llama().complete({ ...ask(), onText: (d: string) => deltas.push(d) });
    assert.deepEqual(result, { text: 'Local models stream too, in pieces.', usage: { inputTokens: 30, outputTokens: 8 }, stopReason: 'stop' });
    assert.ok(deltas.length > 1);
    const sent = ollama.requests.at(-1)!.body;
    assert.deepEqual(sent.messages[0], { role: 'system', content: 'be brief' });
    assert.equal(sent.options.num_predict, 64);
  });

  it('Ollama: a missing model, a scripted error, a mid-stream error and a dead host are UPSTREAM_ERRORs', async () => {
    await assert.rejects(llama('nope').complete(ask()), (err: any) => err.code === 'UPSTREAM_ERROR' && /404.*ollama pull nope/.test(err.message));
    ollama.setScript([{ error: { status: 500, message: 'runner died' } }]);
    await assert.rejects(llama().complete(ask()), (err: any) => err.code === 'UPSTREAM_ERROR' && /500: runner died/.test(err.message));
    ollama.setScript([{ error: { status: 500, message: 'out of memory', midStream: true } }]);
    await assert.rejects(llama().complete(ask()), (err: any) => /out of memory/.test(err.message));
    const dead = await startFakeOllama();
    await dead.close();
    await assert.rejects(llama('llama3.2', dead.url).complete(ask()), (err: any) => /cannot reach ollama.*ollama serve/.test(err.message));
    ollama.setScript([{ hang: true }]);
    await assert.rejects(llama().complete({ ...ask(), signal: AbortSignal.timeout(150) }), (err: any) => err.code === 'TIMEOUT');
  });

  it('checkModel: knows installed and missing models without spending tokens', async () => {
    const before = ollama.requests.filter((r) => r.path === '/api/chat').length;
    assert.deepEqual(await llama().checkModel(), { reachable: true, modelAvailable: true, detail: 'model llama3.2:latest is installed' });
    assert.equal((await llama('mistral').checkModel()).modelAvailable, false);
    assert.equal(ollama.requests.filter((r) => r.path === '/api/chat').length, before);
    assert.equal((await claude().checkModel()).modelAvailable, true);
    assert.equal((await claude({ model: 'claude-nope' }).checkModel()).modelAvailable, false);
  });
});
