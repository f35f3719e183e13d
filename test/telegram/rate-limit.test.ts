import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ChatRateLimit } from '../../extensions/telegram/rate-limit.js';

describe('the per-chat rate limit', () => {
  it('lets a chat send its budget, refuses the rest with one warning, refills over a minute, and leaves other chats alone', () => {
    let now = 0;
    const limit = new ChatRateLimit(3, () => now);
    assert.deepEqual([1, 2, 3, 4].map(() => limit.take('a')), [true, true, true, false]);
    assert.equal(limit.warnOnce('a'), true);
    assert.equal(limit.take('a'), false);
    assert.equal(limit.warnOnce('a'), false, 'told once');
    assert.equal(limit.take('b'), true, 'another chat has its own budget');
    now += 20_000; // a third of a minute: one message back
    assert.equal(limit.take('a'), true);
    assert.equal(limit.take('a'), false);
    assert.equal(limit.warnOnce('a'), true, 'warned again after being let through');
  });
});
