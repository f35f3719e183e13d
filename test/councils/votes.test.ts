// The review's strict ending, read into a vote and its reason.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { breakdownOf, parseVote } from '../../extensions/councils/prompts.js';

describe('reading a vote from a review', () => {
  it('reads the vote and the reason, over several lines', () => {
    assert.deepEqual(parseVote('Looks fine.\nVOTE: APPROVE\nREASON: well argued.\nAnd tested.'), { vote: 'approve', reason: 'well argued.\nAnd tested.' });
    assert.deepEqual(parseVote('vote: reject\nreason: no proof'), { vote: 'reject', reason: 'no proof' });
    assert.deepEqual(parseVote('**VOTE:** Abstain.\n**REASON:** not my field'), { vote: 'abstain', reason: 'not my field' });
  });

  it('takes the last VOTE line, and says what is wrong when there is no valid one', () => {
    assert.equal(parseVote('VOTE: REJECT\nOn second thought:\nVOTE: APPROVE\nREASON: fine').vote, 'approve');
    assert.deepEqual(parseVote('VOTE: APPROVE'), { vote: 'approve', reason: 'no reason given' });
    assert.deepEqual(parseVote('I agree with everyone.'), { vote: null, reason: 'the review has no "VOTE:" line' });
    assert.deepEqual(parseVote('VOTE: maybe\nREASON: unsure'), { vote: null, reason: '"VOTE: maybe" is not APPROVE, REJECT or ABSTAIN' });
  });

  it('counts the votes, invalid ones apart', () => {
    assert.deepEqual(breakdownOf([{ vote: 'approve' }, { vote: 'approve' }, { vote: 'reject' }, { vote: null }]), { approve: 2, reject: 1, abstain: 0, invalid: 1 });
  });
});
