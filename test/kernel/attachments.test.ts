// Attachments: raw bytes after a frame (protocol/framing.ts), the way request and reply bodies cross the
// process boundary without the kernel decoding and re-encoding them. In process for the decoder and the
// Peer, then end to end through a real server: bodies in and out of an extension, text replies, a call
// between extensions, and a hand-written extension that never heard of attachments.
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { RoostError } from '../../protocol/errors.js';
import { decodeAttachment, encodeAttachmentFrame, encodeFrame, LineDecoder, type FrameWarning } from '../../protocol/framing.js';
import { Peer, WithAttachment } from '../../protocol/peer.js';
import type { TestServer } from '../helpers/server.js';
import { callAs, registerTenant, startServer, type Tenant } from '../agents/support.js';

function decoder() {
  const messages: Array<Record<string, unknown>> = [];
  const warnings: FrameWarning[] = [];
  const d = new LineDecoder({ message: (m) => messages.push(m), warning: (w) => warnings.push(w) });
  return { d, messages, warnings };
}

describe('attachment framing', () => {
  it('delivers the bytes after a frame undecoded, whatever they hold and however they are cut', () => {
    const { d, messages, warnings } = decoder();
    const body = Buffer.from('{"text":"line one\\nline two","raw":"\n\n{not json"}');
    const bytes = Buffer.concat([encodeAttachmentFrame({ type: 'response', id: '1', value: { status: 200 } }, body), Buffer.from(encodeFrame({ type: 'after' }))]);
    for (const byte of bytes) d.push(Buffer.from([byte]));
    assert.deepEqual(warnings, []);
    assert.deepEqual(messages.map((m) => m.type), ['response', 'after']);
    assert.ok(Buffer.isBuffer(messages[0]!.attachment));
    assert.equal((messages[0]!.attachment as Buffer).toString(), body.toString());
  });

  it('takes an empty attachment and frames that follow in the same chunk', () => {
    const { d, messages, warnings } = decoder();
    d.push(Buffer.concat([encodeAttachmentFrame({ type: 'a' }, Buffer.alloc(0)), encodeAttachmentFrame({ type: 'b' }, Buffer.from('xyz')), Buffer.from(encodeFrame({ type: 'c' }))]));
    assert.deepEqual(warnings, []);
    assert.deepEqual(messages.map((m) => [m.type, (m.attachment as Buffer | undefined)?.toString()]), [['a', ''], ['b', 'xyz'], ['c', undefined]]);
  });

  it('drops a frame whose attachment size is not a byte count, or whose bytes run short or lack their newline', () => {
    const { d, messages, warnings } = decoder();
    d.push('{"type":"x","attachment":{"a":1}}\n{"type":"y","attachment":-1}\n{"type":"z","attachment":2}\nabc\n{"type":"next"}\n');
    // z's two bytes are "ab"; "c" where its newline belongs is a broken frame, then a line of its own.
    assert.deepEqual(warnings.map((w) => w.kind), ['bad_attachment', 'bad_attachment', 'bad_attachment', 'invalid_json']);
    assert.deepEqual(messages.map((m) => m.type), ['next'], 'the decoder resynchronises on the next line');
    const short = decoder();
    short.d.push('{"type":"cut","attachment":10}\nabc');
    short.d.end();
    assert.deepEqual(short.messages, []);
    assert.equal(short.warnings[0]?.kind, 'bad_attachment');
  });

  it('answers a request with an attachment through the Peer, and decodes JSON and text', async () => {
    const aToB = new PassThrough();
    const bToA = new PassThrough();
    const a = new Peer(aToB).attach(bToA);
    const b = new Peer(bToA).attach(aToB);
    b.handle('request', (m) => new WithAttachment({ status: 201, got: (m.attachment as Buffer).toString() }, Buffer.from('{"ok":true}')));
    const reply = await a.request<{ status: number; got: string; attachment: Buffer }>({ type: 'request' }, { attachment: Buffer.from('[1,2]') });
    assert.equal(reply.status, 201);
    assert.equal(reply.got, '[1,2]');
    assert.deepEqual(decodeAttachment(reply.attachment, 'json'), { ok: true });
    assert.equal(decodeAttachment(Buffer.from('plain'), 'text'), 'plain');
    assert.equal(decodeAttachment(Buffer.alloc(0), 'json'), null);
    assert.throws(() => decodeAttachment(Buffer.from('{oops'), 'json'), (err: unknown) => err instanceof RoostError && err.code === 'VALIDATION_ERROR');
  });
});

describe('attachments end to end', () => {
  let server: TestServer;
  let keys: Tenant;

  before(async () => {
    server = await startServer();
    keys = await registerTenant(server, 'attachments');
  });
  after(() => server.cleanup());

  it('passes a JSON body to an extension and its reply back byte for byte, and refuses a malformed body', async () => {
    const description = 'unicode ✓ "quoted" \\ back\nslash';
    const created = await server.api('POST', '/api/projects', { key: keys.owner, body: { name: 'att', workingDir: server.dataDir, description } });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.equal(created.body.description, description);
    const bad = await server.api('POST', '/api/projects', { key: keys.owner, raw: '{"name":' });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.code, 'VALIDATION_ERROR');
    const removed = await server.api('DELETE', `/api/projects/${created.body.id}`, { key: keys.owner });
    assert.equal(removed.status, 204);
    assert.equal(removed.text, '');
  });

  it('carries bodies both ways on a call to a hand-written extension that knows nothing of attachments', async () => {
    const agent = await server.api('POST', '/api/agents', { key: keys.owner, body: { name: 'attached' } });
    assert.equal(agent.status, 201, agent.text);
    const got = await callAs(server, keys.owner, 'GET', `/api/agents/${agent.body.id}`);
    assert.equal(got.status, 200);
    assert.deepEqual(got.body, agent.body);
    const updated = await callAs(server, keys.owner, 'PUT', `/api/agents/${agent.body.id}`, { description: 'via call' });
    assert.equal(updated.status, 200);
    assert.equal(updated.body.description, 'via call');
  });
});
