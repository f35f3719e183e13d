import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ChannelPacer, InboundLimit } from '../../sdk/bridge/limits.js';

describe('the bridges\' rate limits (sdk/bridge/limits.ts)', () => {
  it('inbound: a key sends its budget, is refused the rest with one warning, refills over a minute; other keys are left alone', () => {
    let now = 0;
    const limit = new InboundLimit(3, () => now);
    assert.deepEqual([1, 2, 3, 4].map(() => limit.take('a')), [true, true, true, false]);
    assert.equal(limit.warnOnce('a'), true);
    assert.equal(limit.take('a'), false);
    assert.equal(limit.warnOnce('a'), false, 'told once');
    assert.equal(limit.take('b'), true, 'another key has its own budget');
    now += 20_000; // a third of a minute: one message back
    assert.equal(limit.take('a'), true);
    assert.equal(limit.take('a'), false);
    assert.equal(limit.warnOnce('a'), true, 'warned again after being let through');
  });

  it('outbound: messages to one channel are spaced by the interval, other channels are not held up', () => {
    let now = 1_000;
    const pacer = new ChannelPacer(250, () => now);
    assert.deepEqual([1, 2, 3].map(() => pacer.reserve('c1')), [0, 250, 500]);
    assert.equal(pacer.reserve('c2'), 0, 'another channel leaves at once');
    now += 1_000;
    assert.equal(pacer.reserve('c1'), 0, 'a quiet channel sends at once again');
  });
});
