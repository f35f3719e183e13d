// NDJSON framing on its own: frames split anywhere (inside a UTF-8 character too), bad lines dropped with
// a warning and the stream resynchronised, over-long lines counted and skipped, raw attachments.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeAttachment, encodeAttachmentFrame, encodeFrame, LineDecoder, type FrameWarning } from '../../protocol/framing.js';

function decoder(maxFrameBytes?: number) {
  const messages: Array<Record<string, unknown>> = [];
  const warnings: FrameWarning[] = [];
  const d = new LineDecoder({ message: (m) => messages.push(m), warning: (w) => warnings.push(w) }, maxFrameBytes);
  return { d, messages, warnings };
}

describe('framing', () => {
  it('decodes frames however the bytes are cut, a multi-byte character split between chunks included', () => {
    const wire = Buffer.from(encodeFrame({ type: 'hello', text: 'grüße 🐦' }) + encodeFrame({ type: 'bye' }));
    for (let cut = 1; cut < wire.length; cut++) {
      const { d, messages, warnings } = decoder();
      d.push(wire.subarray(0, cut));
      d.push(wire.subarray(cut));
      assert.deepEqual(messages, [{ type: 'hello', text: 'grüße 🐦' }, { type: 'bye' }], `cut at ${cut}`);
      assert.deepEqual(warnings, []);
    }
  });

  it('flushes a last line without a newline at the end of the stream', () => {
    const { d, messages } = decoder();
    d.push('{"type":"last"}');
    assert.deepEqual(messages, []);
    d.end();
    assert.deepEqual(messages, [{ type: 'last' }]);
  });

  it('drops what is not a typed JSON object with a warning, and carries on with the next line', () => {
    const { d, messages, warnings } = decoder();
    d.push('not json\n[1,2]\n{"no":"type"}\n\n   \n{"type":"ok"}\n');
    assert.deepEqual(messages, [{ type: 'ok' }]);
    assert.deepEqual(warnings.map((w) => w.kind), ['invalid_json', 'not_object', 'not_object']);
  });

  it('skips a line longer than the frame limit, whatever its chunks, and reports its size', () => {
    const { d, messages, warnings } = decoder(64);
    const long = JSON.stringify({ type: 'big', pad: 'x'.repeat(200) });
    d.push(long.slice(0, 50));
    d.push(long.slice(50, 120));
    d.push(`${long.slice(120)}\n{"type":"after"}\n`);
    assert.deepEqual(messages, [{ type: 'after' }]);
    assert.deepEqual(warnings, [{ kind: 'oversize', bytes: Buffer.byteLength(long) }]);
  });

  it('refuses a frame nested deeper than the JSON limits before parsing it', () => {
    const { d, messages, warnings } = decoder();
    d.push(`{"type":"deep","v":${'['.repeat(10_000)}${']'.repeat(10_000)}}\n{"type":"ok"}\n`);
    assert.deepEqual(messages, [{ type: 'ok' }]);
    assert.equal(warnings[0]?.kind, 'over_limit');
  });

  it('carries a raw attachment, byte for byte, newlines inside it included', () => {
    const body = Buffer.from('line one\nline two\n\u0000\u00ff');
    const wire = Buffer.concat([Buffer.from(encodeAttachmentFrame({ type: 'reply', id: 1 }, body) as Buffer), Buffer.from(encodeFrame({ type: 'next' }))]);
    for (const cut of [1, 10, wire.length - 3]) {
      const { d, messages, warnings } = decoder();
      d.push(wire.subarray(0, cut));
      d.push(wire.subarray(cut));
      assert.deepEqual(warnings, [], `cut at ${cut}`);
      assert.equal(messages.length, 2);
      assert.deepEqual(messages[0]!.attachment, body);
      assert.equal(messages[0]!.id, 1);
      assert.deepEqual(messages[1], { type: 'next' });
    }
    // A string attachment counts its UTF-8 bytes, and an empty message still gets the field.
    const text = encodeAttachmentFrame({}, 'é') as string;
    assert.equal(text, '{"attachment":2}\né\n');
    const { d, messages } = decoder();
    d.push(encodeAttachmentFrame({ type: 't' }, 'héllo'));
    assert.equal(decodeAttachment(messages[0]!.attachment as Buffer, 'text'), 'héllo');
  });

  it('drops a frame whose attachment is out of step or badly sized, and resynchronises', () => {
    const { d, messages, warnings } = decoder(100);
    d.push('{"type":"a","attachment":3}\nabcX{"type":"b"}\n');
    d.push('{"type":"c","attachment":-1}\n{"type":"d","attachment":1000}\n{"type":"e"}\n');
    d.push('{"type":"f","attachment":5}\nab');
    d.end();
    assert.deepEqual(messages, [{ type: 'e' }]);
    assert.deepEqual(warnings.map((w) => w.kind), ['bad_attachment', 'invalid_json', 'bad_attachment', 'bad_attachment', 'bad_attachment']);
  });

  it('decodes an attachment as text or JSON; bad JSON is the sender\'s VALIDATION_ERROR', () => {
    assert.deepEqual(decodeAttachment(Buffer.from('{"a":1}'), 'json'), { a: 1 });
    assert.equal(decodeAttachment('', 'json'), null);
    assert.equal(decodeAttachment('{', 'text'), '{');
    assert.throws(() => decodeAttachment('{', 'json'), (err: Error & { code?: string }) => err.code === 'VALIDATION_ERROR');
  });
});
