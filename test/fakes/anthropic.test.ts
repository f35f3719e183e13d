// The fake Anthropic API, driven by the real @anthropic-ai/sdk: if the SDK parses it, so will our code.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { FAKE_ANTHROPIC_KEY, startFakeAnthropic, type FakeAnthropic } from './anthropic.js';

describe('fake Anthropic API', () => {
  let fake: FakeAnthropic;
  let client: Anthropic;
  before(async () => {
    fake = await startFakeAnthropic();
    client = new Anthropic({ apiKey: FAKE_ANTHROPIC_KEY, baseURL: fake.url, maxRetries: 0 });
  });
  after(() => fake.close());

  it('answers a non-streaming request with a message object and records the request', async () => {
    fake.setScript([{ text: 'Plain answer.', usage: { input_tokens: 11, output_tokens: 3 } }]);
    const message = await client.messages.create({
      model: 'claude-sonnet-5-5',
      max_tokens: 64,
      system: 'be brief',
      messages: [{ role: 'user', content: 'hi' }],
    });
    assert.equal(message.type, 'message');
    assert.equal(message.role, 'assistant');
    assert.equal(message.model, 'claude-sonnet-5-5');
    assert.match(message.id, /^msg_/);
    assert.deepEqual(message.content, [{ type: 'text', text: 'Plain answer.' }]);
    assert.equal(message.stop_reason, 'end_turn');
    assert.equal(message.usage.input_tokens, 11);
    assert.equal(message.usage.output_tokens, 3);
    const recorded = fake.requests.at(-1)!;
    assert.equal(recorded.path, '/v1/messages');
    assert.equal(recorded.headers.authorization, `Bearer ${FAKE_ANTHROPIC_KEY}`);
    assert.equal(recorded.body.system, 'be brief');
    assert.deepEqual(recorded.body.messages, [{ role: 'user', content: 'hi' }]);
  });

  it('streams text deltas that the SDK reassembles', async () => {
    const text = 'A streamed answer that is long enough to arrive in several pieces.';
    fake.setScript([text]);
    const stream = client.messages.stream({ model: 'claude-sonnet-5-5', max_tokens: 64, messages: [{ role: 'user', content: 'go' }] });
    const deltas: string[] = [];
    stream.on('text', (delta) => deltas.push(delta));
    const message = await stream.finalMessage();
    assert.ok(deltas.length > 1, 'the text arrived in more than one delta');
    assert.equal(deltas.join(''), text);
    assert.deepEqual(message.content, [{ type: 'text', text }]);
    assert.equal(message.stop_reason, 'end_turn');
    assert.ok(message.usage.output_tokens > 1);
    assert.equal(fake.requests.at(-1)!.body.stream, true);
  });

  it('streams thinking, text and tool_use blocks in the real event order', async () => {
    const input = { path: 'src/a.ts', lines: [1, 2, 3], nested: { ok: true } };
    fake.setScript([{ thinking: 'Let me look at the file first.', text: 'Reading it.', toolUses: [{ name: 'read_file', input }] }]);
    const raw = await client.messages.create({
      model: 'claude-sonnet-5-5',
      max_tokens: 256,
      stream: true,
      messages: [{ role: 'user', content: 'read src/a.ts' }],
      tools: [{ name: 'read_file', description: 'read a file', input_schema: { type: 'object', properties: { path: { type: 'string' } } } }],
    });
    const types: string[] = [];
    const deltaTypes = new Set<string>();
    for await (const event of raw) {
      types.push(event.type);
      if (event.type === 'content_block_delta') deltaTypes.add(event.delta.type);
    }
    assert.equal(types[0], 'message_start');
    assert.deepEqual(types.slice(-2), ['message_delta', 'message_stop']);
    assert.deepEqual([...deltaTypes].sort(), ['input_json_delta', 'signature_delta', 'text_delta', 'thinking_delta']);
    assert.equal(types.filter((t) => t === 'content_block_start').length, 3);
    assert.equal(types.filter((t) => t === 'content_block_stop').length, 3);

    const stream = client.messages.stream({ model: 'claude-sonnet-5-5', max_tokens: 256, messages: [{ role: 'user', content: 'again' }] });
    const message = await stream.finalMessage();
    assert.equal(message.stop_reason, 'tool_use');
    const [thinking, text, toolUse] = message.content;
    assert.equal(thinking?.type === 'thinking' && thinking.thinking, 'Let me look at the file first.');
    assert.ok(thinking?.type === 'thinking' && thinking.signature.startsWith('sig_'));
    assert.equal(text?.type === 'text' && text.text, 'Reading it.');
    assert.ok(toolUse?.type === 'tool_use');
    assert.equal(toolUse.name, 'read_file');
    assert.match(toolUse.id, /^toolu_/);
    assert.deepEqual(toolUse.input, input);
  });

  it('answers tool_use without streaming too', async () => {
    fake.setScript([{ toolUses: [{ id: 'toolu_fixed', name: 'lookup', input: { q: 'x' } }] }]);
    const message = await client.messages.create({ model: 'claude-sonnet-5-5', max_tokens: 32, messages: [{ role: 'user', content: 'q' }] });
    assert.deepEqual(message.content, [{ type: 'tool_use', id: 'toolu_fixed', name: 'lookup', input: { q: 'x' } }]);
    assert.equal(message.stop_reason, 'tool_use');
  });

  it('returns 429 with retry-after and the real error body', async () => {
    fake.setScript([{ error: { status: 429, retryAfter: 7 } }]);
    const err = await client.messages
      .create({ model: 'claude-sonnet-5-5', max_tokens: 8, messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e);
    assert.ok(err instanceof Anthropic.RateLimitError);
    assert.equal(err.status, 429);
    assert.equal(err.headers?.get('retry-after'), '7');
    assert.equal(err.type, 'rate_limit_error');
    const body = err.error as { type: string; error: { type: string; message: string } };
    assert.equal(body.type, 'error');
    assert.equal(body.error.type, 'rate_limit_error');
    assert.ok(body.error.message.length > 0);
  });

  it('returns 500 api_error and 529 overloaded_error, and the SDK retries into a later success', async () => {
    fake.setScript([{ error: { status: 500 } }]);
    const internal = await client.messages
      .create({ model: 'claude-sonnet-5-5', max_tokens: 8, messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e);
    assert.ok(internal instanceof Anthropic.InternalServerError);
    assert.equal(internal.type, 'api_error');

    fake.setScript([{ error: { status: 529, retryAfter: 0.01 } }, 'recovered']);
    const before = fake.requests.length;
    const retrying = new Anthropic({ apiKey: FAKE_ANTHROPIC_KEY, baseURL: fake.url, maxRetries: 1 });
    const message = await retrying.messages.create({ model: 'claude-sonnet-5-5', max_tokens: 8, messages: [{ role: 'user', content: 'x' }] });
    assert.deepEqual(message.content, [{ type: 'text', text: 'recovered' }]);
    assert.equal(fake.requests.length - before, 2, 'one overloaded answer, then one retry');
  });

  it('sends an error event in the middle of a stream', async () => {
    fake.setScript([{ text: 'never sent', error: { status: 529, midStream: true } }]);
    const stream = client.messages.stream({ model: 'claude-sonnet-5-5', max_tokens: 8, messages: [{ role: 'user', content: 'x' }] });
    const err = await stream.finalMessage().catch((e: unknown) => e);
    assert.ok(err instanceof Anthropic.APIError);
    assert.equal(err.type, 'overloaded_error');
  });

  it('refuses a wrong or missing key (bearer or x-api-key) and a missing anthropic-version', async () => {
    const wrong = new Anthropic({ apiKey: 'sk-wrong', baseURL: fake.url, maxRetries: 0 });
    const err = await wrong.messages.create({ model: 'm', max_tokens: 8, messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    assert.ok(err instanceof Anthropic.AuthenticationError);
    assert.equal(err.type, 'authentication_error');

    const noKey = await fetch(`${fake.url}/v1/messages`, { method: 'POST', headers: { 'anthropic-version': '2023-06-01' }, body: '{}' });
    assert.equal(noKey.status, 401);
    assert.equal(((await noKey.json()) as { error: { message: string } }).error.message, 'x-api-key header is required');
    const noVersion = await fetch(`${fake.url}/v1/messages`, { method: 'POST', headers: { 'x-api-key': FAKE_ANTHROPIC_KEY }, body: '{}' });
    assert.equal(noVersion.status, 400);
    const wrongHeader = await fetch(`${fake.url}/v1/models`, { headers: { 'x-api-key': 'sk-wrong', 'anthropic-version': '2023-06-01' } });
    assert.equal(wrongHeader.status, 401);
    const rightHeader = await fetch(`${fake.url}/v1/models`, { headers: { 'x-api-key': FAKE_ANTHROPIC_KEY, 'anthropic-version': '2023-06-01' } });
    assert.equal(rightHeader.status, 200);
  });

  it('rejects malformed bodies with invalid_request_error naming the field', async () => {
    const headers = { 'x-api-key': FAKE_ANTHROPIC_KEY, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' };
    const cases: Array<[string, RegExp]> = [
      ['not json', /JSON object/],
      [JSON.stringify({ max_tokens: 5, messages: [{ role: 'user', content: 'x' }] }), /^model/],
      [JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'x' }] }), /^max_tokens/],
      [JSON.stringify({ model: 'm', max_tokens: 5, messages: [] }), /^messages/],
      [JSON.stringify({ model: 'm', max_tokens: 5, messages: [{ role: 'system', content: 'x' }] }), /role/],
    ];
    for (const [body, message] of cases) {
      const response = await fetch(`${fake.url}/v1/messages`, { method: 'POST', headers, body });
      assert.equal(response.status, 400, body);
      const parsed = (await response.json()) as { type: string; error: { type: string; message: string } };
      assert.equal(parsed.type, 'error');
      assert.equal(parsed.error.type, 'invalid_request_error');
      assert.match(parsed.error.message, message);
    }
    const unknown = await fetch(`${fake.url}/v1/nothing`, { headers });
    assert.equal(unknown.status, 404);
    assert.equal(((await unknown.json()) as { error: { type: string } }).error.type, 'not_found_error');
  });

  it('lists and retrieves models', async () => {
    const ids: string[] = [];
    for await (const model of client.models.list()) ids.push(model.id);
    assert.ok(ids.includes('claude-sonnet-5-5'));
    assert.equal((await client.models.retrieve('claude-opus-5-5')).id, 'claude-opus-5-5');
    await assert.rejects(client.models.retrieve('claude-nonexistent'), Anthropic.NotFoundError);
  });

  it('delays, hangs until the client gives up, and answers from a function script', async () => {
    fake.setScript([{ text: 'late', delayMs: 150 }]);
    const started = Date.now();
    const late = await client.messages.create({ model: 'm', max_tokens: 8, messages: [{ role: 'user', content: 'x' }] });
    assert.ok(Date.now() - started >= 140);
    assert.deepEqual(late.content, [{ type: 'text', text: 'late' }]);

    fake.setScript([{ hang: true }]);
    const err = await client.messages
      .create({ model: 'm', max_tokens: 8, messages: [{ role: 'user', content: 'x' }] }, { timeout: 200 })
      .catch((e: unknown) => e);
    assert.ok(err instanceof Anthropic.APIConnectionTimeoutError);

    fake.setScript((req) => `you said: ${req.body.messages[0].content}`);
    const echoed = await client.messages.create({ model: 'm', max_tokens: 8, messages: [{ role: 'user', content: 'ping' }] });
    assert.deepEqual(echoed.content, [{ type: 'text', text: 'you said: ping' }]);
  });

  it('refuses models outside an explicit list', async () => {
    const strict = await startFakeAnthropic({ models: ['claude-only'] });
    try {
      const c = new Anthropic({ apiKey: FAKE_ANTHROPIC_KEY, baseURL: strict.url, maxRetries: 0 });
      await assert.rejects(c.messages.create({ model: 'claude-other', max_tokens: 8, messages: [{ role: 'user', content: 'x' }] }), Anthropic.NotFoundError);
      const ok = await c.messages.create({ model: 'claude-only', max_tokens: 8, messages: [{ role: 'user', content: 'x' }] });
      assert.equal(ok.model, 'claude-only');
    } finally {
      await strict.close();
    }
  });

  it('closes while a request hangs', async () => {
    const hanging = await startFakeAnthropic({ script: [{ hang: true }] });
    const c = new Anthropic({ apiKey: FAKE_ANTHROPIC_KEY, baseURL: hanging.url, maxRetries: 0 });
    const pending = c.messages.create({ model: 'm', max_tokens: 8, messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    while (hanging.requests.length === 0) await new Promise((r) => setTimeout(r, 10));
    await hanging.close();
    assert.ok((await pending) instanceof Anthropic.APIConnectionError);
  });
});
