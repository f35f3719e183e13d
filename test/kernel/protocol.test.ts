// cli-v1 in process: the NDJSON decoder, the JSON limits it applies before parsing, and the Peer that
// correlates requests, with two peers wired back to back over in-memory streams.
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { PassThrough } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { RoostError } from '../../protocol/errors.js';
import { encodeFrame, LineDecoder, type FrameWarning } from '../../protocol/framing.js';
import { checkJsonLimits, scanJsonLimits } from '../../protocol/json-limits.js';
import { Peer, type PeerWarning } from '../../protocol/peer.js';

function decoder(maxFrameBytes?: number) {
  const messages: Array<Record<string, unknown>> = [];
  const warnings: FrameWarning[] = [];
  const d = new LineDecoder({ message: (m) => messages.push(m), warning: (w) => warnings.push(w) }, maxFrameBytes);
  return { d, messages, warnings };
}

/** Two peers talking over a pair of in-memory pipes. */
function pair(options: { timeoutMs?: number } = {}) {
  const aToB = new PassThrough();
  const bToA = new PassThrough();
  const warnings = { a: [] as PeerWarning[], b: [] as PeerWarning[] };
  const a = new Peer(aToB, { ...options, onWarning: (w) => warnings.a.push(w) }).attach(bToA);
  const b = new Peer(bToA, { onWarning: (w) => warnings.b.push(w) }).attach(aToB);
  return { a, b, warnings, aToB, bToA };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('NDJSON framing', () => {
  it('reassembles a frame delivered one byte at a time, and several frames in one chunk', () => {
    const { d, messages, warnings } = decoder();
    for (const byte of Buffer.from(encodeFrame({ type: 'log', message: 'hello' }))) d.push(Buffer.from([byte]));
    d.push(`${encodeFrame({ type: 'a' })}${encodeFrame({ type: 'b' })}{"type":"c"`);
    assert.deepEqual(messages.map((m) => m.type), ['log', 'a', 'b']);
    d.push('}\n');
    assert.deepEqual(messages.map((m) => m.type), ['log', 'a', 'b', 'c']);
    assert.equal(messages[0]!.message, 'hello');
    assert.deepEqual(warnings, []);
  });

  it('keeps multi-byte UTF-8 intact when a character is split across chunks', () => {
    const { d, messages, warnings } = decoder();
    const text = 'naïve 日本語 🦉 done';
    const bytes = Buffer.from(encodeFrame({ type: 'output', text }));
    const owl = bytes.indexOf(Buffer.from('🦉'));
    // Split inside the four-byte owl, then inside the three-byte 本.
    const cut = bytes.indexOf(Buffer.from('本')) + 1;
    d.push(bytes.subarray(0, cut));
    d.push(bytes.subarray(cut, owl + 2));
    d.push(bytes.subarray(owl + 2));
    assert.equal(messages.length, 1);
    assert.equal(messages[0]!.text, text);
    assert.deepEqual(warnings, []);
  });

  it('drops an oversize frame with a warning and still parses the next frame', () => {
    const { d, messages, warnings } = decoder(1024);
    d.push(`{"type":"big","pad":"${'x'.repeat(5000)}"}\n${encodeFrame({ type: 'after' })}`);
    // The same across many chunks: the long line is skipped, never buffered whole.
    d.push('{"type":"big2","pad":"');
    for (let i = 0; i < 50; i++) d.push('y'.repeat(500));
    d.push(`"}\n${encodeFrame({ type: 'after2' })}`);
    assert.deepEqual(messages.map((m) => m.type), ['after', 'after2']);
    assert.equal(warnings.length, 2);
    assert.equal(warnings[0]!.kind, 'oversize');
    assert.equal(warnings[1]!.kind, 'oversize');
    assert.ok((warnings[1] as { bytes: number }).bytes > 25_000);
  });

  it('warns about lines that are not JSON or not objects with a type, and goes on', () => {
    const { d, messages, warnings } = decoder();
    d.push('not json at all\n{"type":"ok1"}\n[1,2]\n42\n"text"\nnull\n{"no":"type"}\n{"type":7}\n\n   \r\n{"type":"ok2"}\r\n');
    assert.deepEqual(messages.map((m) => m.type), ['ok1', 'ok2']);
    assert.deepEqual(warnings.map((w) => w.kind), ['invalid_json', 'not_object', 'not_object', 'not_object', 'not_object', 'not_object', 'not_object']);
    assert.equal((warnings[0] as { sample: string }).sample, 'not json at all');
  });

  it('drops a frame nested past the depth limit with a warning, before parsing it, and parses the next', () => {
    const { d, messages, warnings } = decoder();
    const deep = (depth: number) => `{"type":"deep","x":${'['.repeat(depth)}${']'.repeat(depth)}}`;
    d.push(`${deep(5000)}\n${deep(126)}\n${encodeFrame({ type: 'after' })}`);
    assert.deepEqual(messages.map((m) => m.type), ['deep', 'after'], 'a frame at the limit (128 levels) passes');
    assert.equal(warnings.length, 1);
    assert.equal(warnings[0]!.kind, 'over_limit');
    assert.match((warnings[0] as { reason: string }).reason, /nested deeper than 128 levels/);
  });

  it('flushes a last line without a newline when the stream ends', () => {
    const { d, messages } = decoder();
    d.push('{"type":"last"}');
    assert.equal(messages.length, 0);
    d.end();
    assert.deepEqual(messages.map((m) => m.type), ['last']);
  });
});

describe('JSON limits', () => {
  const limits = { maxDepth: 3, maxMembers: 4, maxString: 5 };

  it('counts depth, members (keys and items) and string length as written, in one pass', () => {
    assert.equal(scanJsonLimits('{"a":[1,{"b":2}]}', limits), undefined);
    assert.match(scanJsonLimits('[[[[]]]]', limits)!, /nested deeper than 3 levels/);
    assert.match(scanJsonLimits('{"a":1,"b":2,"c":[3,4]}', limits)!, /more than 4 members/);
    assert.equal(scanJsonLimits('{"a":[],"b":{},"c":[1]}', limits), undefined, 'empty containers have no members');
    assert.match(scanJsonLimits('["123456"]', limits)!, /string is longer than 5 characters/);
    assert.equal(scanJsonLimits('["12345"]', limits), undefined);
  });

  it('ignores brackets, commas and escaped quotes inside strings', () => {
    assert.equal(scanJsonLimits('["[[[[", "a\\"b"]', { ...limits, maxString: 10 }), undefined);
    assert.equal(scanJsonLimits('[",,,,", "\\\\"]', limits), undefined);
    assert.match(scanJsonLimits('["a\\"[[[[["]', limits)!, /longer than 5/, 'the escaped quote does not end the string');
  });

  it('throws VALIDATION_ERROR with the reason from checkJsonLimits, and lets malformed text through to JSON.parse', () => {
    assert.throws(() => checkJsonLimits('[[[[1]]]]', limits), (err: RoostError) => err.code === 'VALIDATION_ERROR' && /deeper than 3/.test(err.message));
    assert.doesNotThrow(() => checkJsonLimits(']]]}}{"abc', limits));
  });
});

describe('Peer', () => {
  // The peer's timers are unref'd (they never hold a process open), so the test holds the loop itself.
  let keepAlive: NodeJS.Timeout;
  before(() => (keepAlive = setInterval(() => undefined, 1_000)));
  after(() => clearInterval(keepAlive));

  it('correlates responses with requests by id, whatever order they come back in', async () => {
    const { a, b } = pair();
    const waiters: Array<() => void> = [];
    b.handle('exec', (m) => new Promise((resolve) => waiters.push(() => resolve({ code: 0, stdout: String(m.command), stderr: '' }))));
    const first = a.request<{ stdout: string }>({ type: 'exec', command: 'first' });
    const second = a.request<{ stdout: string }>({ type: 'exec', command: 'second' });
    await tick();
    assert.equal(a.inFlight, 2);
    waiters[1]!();
    waiters[0]!();
    assert.equal((await first).stdout, 'first');
    assert.equal((await second).stdout, 'second');
    assert.equal(a.inFlight, 0);
  });

  it('uses the caller-chosen id and answers handler errors with their code', async () => {
    const { a, b, aToB } = pair();
    const sent: string[] = [];
    aToB.on('data', (chunk: Buffer) => sent.push(chunk.toString()));
    b.handle('store', () => {
      throw new RoostError('CAPABILITY_DENIED', 'store is not granted');
    });
    await assert.rejects(a.request({ type: 'store', key: 'k', value: 'v' }, { id: 'my-7' }), (err: RoostError) => err.code === 'CAPABILITY_DENIED' && err.message === 'store is not granted');
    assert.match(sent.join(''), /"id":"my-7"/);
  });

  it('hides the details of unexpected handler failures behind INTERNAL and warns locally', async () => {
    const { a, b, warnings } = pair();
    b.handle('load', async () => {
      throw new Error('secret database path /var/x');
    });
    await assert.rejects(a.request({ type: 'load', key: 'k' }), (err: RoostError) => err.code === 'INTERNAL' && !err.message.includes('/var/x'));
    assert.ok(warnings.b.some((w) => w.kind === 'handler_failed' && w.error.includes('/var/x')));
  });

  it('answers a request of an unknown type with UNKNOWN_TYPE and ignores unknown notifications', async () => {
    const { a, warnings } = pair();
    await assert.rejects(a.request({ type: 'teleport' }), (err: RoostError) => err.code === 'UNKNOWN_TYPE' && /teleport/.test(err.message));
    a.notify({ type: 'future_thing', data: 1 });
    await tick();
    assert.deepEqual(warnings.a, []);
    assert.deepEqual(warnings.b, []);
  });

  it('times a request out, and warns when its answer comes too late', async () => {
    const { a, b, warnings } = pair();
    let answer!: (v: unknown) => void;
    b.handle('prompt', () => new Promise((resolve) => (answer = resolve)));
    await assert.rejects(a.request({ type: 'prompt', message: 'name?' }, { timeoutMs: 30 }), (err: RoostError) => err.code === 'TIMEOUT');
    assert.equal(a.inFlight, 0);
    answer('late');
    await tick();
    await tick();
    assert.ok(warnings.a.some((w) => w.kind === 'unmatched_response'));
  });

  it('applies the default timeout of the peer options', async () => {
    const { a, b } = pair({ timeoutMs: 20 });
    b.handle('confirm', () => new Promise(() => undefined));
    await assert.rejects(a.request({ type: 'confirm', message: 'sure?' }), (err: RoostError) => err.code === 'TIMEOUT' && /20 ms/.test(err.message));
  });

  it('cancels a request through an AbortSignal, before or while it is in flight, and drops its late answer quietly', async () => {
    const { a, b, warnings } = pair();
    let answer!: (v: unknown) => void;
    b.handle('select', () => new Promise((resolve) => (answer = resolve)));
    const controller = new AbortController();
    const pending = a.request({ type: 'select', message: 'pick' }, { signal: controller.signal });
    await tick();
    controller.abort();
    await assert.rejects(pending, (err: RoostError) => err.code === 'CANCELLED');
    assert.equal(a.inFlight, 0);
    answer('too late');
    await tick();
    await tick();
    assert.deepEqual(warnings.a, [], 'the answer to a request given up is expected, not an anomaly');
    await assert.rejects(a.request({ type: 'select', message: 'pick' }, { signal: AbortSignal.abort() }), (err: RoostError) => err.code === 'CANCELLED');
    assert.equal(a.inFlight, 0);
  });

  it('leaves no abort listener behind on a long-lived signal once requests are answered', async () => {
    const { a, b } = pair();
    b.handle('metadata', () => ({ name: 'demo' }));
    const session = new AbortController();
    for (let i = 0; i < 3; i++) assert.deepEqual(await a.request({ type: 'metadata' }, { signal: session.signal }), { name: 'demo' });
    assert.equal(getEventListeners(session.signal, 'abort').length, 0);
  });

  it('close() fails every pending request with its reason and refuses new ones', async () => {
    const { a, b } = pair();
    b.handle('exec', () => new Promise(() => undefined));
    const one = a.request({ type: 'exec', command: 'x' });
    const two = a.request({ type: 'exec', command: 'y' });
    await tick();
    const reason = new RoostError('EXTENSION_UNAVAILABLE', 'process exited (SIGKILL)');
    a.close(reason);
    await assert.rejects(one, (err) => err === reason);
    await assert.rejects(two, (err) => err === reason);
    assert.ok(a.closed);
    await assert.rejects(a.request({ type: 'exec', command: 'z' }), (err) => err === reason);
  });

  it('drops a frame from the other side nested too deep, warns, and keeps answering', async () => {
    const { a, b, bToA, warnings } = pair();
    b.handle('metadata', () => ({ name: 'still here' }));
    bToA.write(`{"type":"log","level":"info","message":${'['.repeat(5000)}${']'.repeat(5000)}}\n`);
    assert.deepEqual(await a.request({ type: 'metadata' }), { name: 'still here' });
    assert.deepEqual(warnings.a.map((w) => w.kind), ['over_limit']);
  });

  it('answers null for a handler that returns nothing', async () => {
    const { a, b } = pair();
    b.handle('output', () => undefined);
    assert.equal(await a.request({ type: 'output', text: 'hi' }), null);
  });

  it('fails a request cleanly on a hand-written error response with fields of the wrong type', async () => {
    const peer = new Peer(new PassThrough());
    const pending = peer.request({ type: 'load', key: 'k' }, { id: 'odd' });
    peer.push('{"type":"response","id":"odd","error":{"code":5}}\n');
    await assert.rejects(pending, (err: RoostError) => err.code === 'PROTOCOL_ERROR' && err.message === 'request failed');
  });
});
