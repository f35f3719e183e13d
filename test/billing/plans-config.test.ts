// ROOST_PLANS as the plans extension reads it: partial plans merged over the defaults, new plans starting from
// free's limits, and every bad value refused with a message naming it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_PLANS, plansFrom } from '../../extensions/plans/limits.js';

describe('ROOST_PLANS', () => {
  it('merges the plans given over the defaults', () => {
    assert.deepEqual(plansFrom(undefined), DEFAULT_PLANS);
    const plans = plansFrom('{"free": {"agents": 3}, "team": {"members": 20}}');
    assert.deepEqual(plans.free, { ...DEFAULT_PLANS.free, agents: 3 });
    assert.deepEqual(plans.team, { ...DEFAULT_PLANS.free, members: 20 });
    assert.deepEqual(plans.pro, DEFAULT_PLANS.pro);
  });

  it('refuses what is not a plan table, naming the problem', () => {
    const cases: Array<[string, RegExp]> = [
      ['{not json', /must be a JSON object/],
      ['[1]', /JSON object of plans/],
      ['{"Free": {}}', /plan name "Free"/],
      ['{"free": 3}', /ROOST_PLANS\.free must be an object/],
      ['{"free": {"robots": 1}}', /robots is not a limit/],
      ['{"free": {"agents": -1}}', /agents must be a whole number/],
      ['{"free": {"agents": 1.5}}', /agents must be a whole number/],
      ['{"free": {"agents": "10"}}', /agents must be a whole number/],
    ];
    for (const [text, message] of cases) assert.throws(() => plansFrom(text), (err: Error) => message.test(err.message), text);
  });
});
