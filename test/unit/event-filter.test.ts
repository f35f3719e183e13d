// A subscribe_when filter on its own: which event payloads it lets through to an extension.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { passes } from '../../kernel/host/event-filter.js';

describe('subscribe_when filter', () => {
  it('lets every event through without a filter', () => {
    assert.equal(passes(undefined, { action: 'created' }), true);
    assert.equal(passes(undefined, null), true);
  });

  it('lets through only payloads whose field holds a listed value', () => {
    const deletions = { action: ['deleted'] };
    assert.equal(passes(deletions, { type: 'agent_updated', action: 'deleted' }), true);
    assert.equal(passes(deletions, { type: 'agent_updated', action: 'created' }), false);
    assert.equal(passes(deletions, { type: 'agent_updated' }), false, 'a missing field does not match');
    assert.equal(passes(deletions, { action: ['deleted'] }), false, 'only a string value matches');
    assert.equal(passes(deletions, 'deleted'), false);
    assert.equal(passes(deletions, null), false);
  });

  it('reaches into objects by a dotted path, and needs every field to match', () => {
    const filter = { 'session.statusReason': ['deleted', 'expired'], type: ['lifecycle'] };
    assert.equal(passes(filter, { type: 'lifecycle', session: { statusReason: 'expired' } }), true);
    assert.equal(passes(filter, { type: 'lifecycle', session: { statusReason: 'idle' } }), false);
    assert.equal(passes(filter, { type: 'lifecycle', session: null }), false);
    assert.equal(passes(filter, { type: 'other', session: { statusReason: 'deleted' } }), false);
  });
});
