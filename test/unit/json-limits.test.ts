// The one-pass scan of JSON text's shape on its own: depth, members and string length counted as
// written, brackets and commas inside strings (escaped quotes included) not counted.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkJsonLimits, EDGE_JSON_LIMITS, frameJsonLimits, scanJsonLimits } from '../../protocol/json-limits.js';

const small = { maxDepth: 3, maxMembers: 4, maxString: 5 };

describe('JSON limits', () => {
  it('keeps to the limits at their edge and goes past them one beyond', () => {
    assert.equal(scanJsonLimits('[[[1]]]', small), undefined);
    assert.match(scanJsonLimits('[[[[1]]]]', small)!, /nested deeper than 3 levels/);
    assert.equal(scanJsonLimits('{"a":1,"b":[2,3]}', small), undefined, 'a, b, 2, 3: four members');
    assert.match(scanJsonLimits('{"a":1,"b":[2,3,4]}', small)!, /more than 4 members/);
    assert.equal(scanJsonLimits('"12345"', small), undefined);
    assert.match(scanJsonLimits('"123456"', small)!, /longer than 5 characters/);
    assert.equal(scanJsonLimits('[ ]', small), undefined, 'an empty container has no member');
  });

  it('does not count what is inside strings, escaped quotes and backslashes included', () => {
    assert.equal(scanJsonLimits('["[[[[,,,,", "a\\\\"]', { ...small, maxString: 20 }), undefined);
    assert.equal(scanJsonLimits('["\\"[[[["]', { ...small, maxString: 20 }), undefined);
    assert.match(scanJsonLimits('["\\\\", [[[1]]]]', { ...small, maxString: 20 })!, /nested deeper/, 'an escaped backslash ends the string');
    // Escapes count as written: six characters between the quotes.
    assert.match(scanJsonLimits('"\\u0041B"', small)!, /longer than 5/);
  });

  it('ends early on text that is not JSON, leaving the syntax to JSON.parse', () => {
    assert.equal(scanJsonLimits('"abc', small), undefined);
    assert.equal(scanJsonLimits(']]]', small), undefined);
  });

  it('allows a frame twice the edge depth, since a frame wraps a body from outside', () => {
    assert.equal(frameJsonLimits(1000).maxDepth, 2 * EDGE_JSON_LIMITS.maxDepth);
    const body = `${'['.repeat(EDGE_JSON_LIMITS.maxDepth)}${']'.repeat(EDGE_JSON_LIMITS.maxDepth)}`;
    assert.doesNotThrow(() => checkJsonLimits(body));
    assert.equal(scanJsonLimits(`{"type":"request","body":${body}}`, frameJsonLimits(1 << 20)), undefined);
    assert.throws(() => checkJsonLimits(`[${body}]`), (err: Error & { code?: string }) => err.code === 'VALIDATION_ERROR' && /deeper than 64/.test(err.message));
  });
});
