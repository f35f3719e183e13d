// How many spare runners the sessions extension keeps: the largest burst of starts in the last ten
// minutes, capped (extensions/sessions/runner-pool.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BurstDemand } from '../../extensions/sessions/runner-pool.js';

describe('runner demand', () => {
  it('follows the largest burst of starts, capped, and forgets it after ten minutes', () => {
    let now = 1_000_000;
    const demand = new BurstDemand(4, () => now);
    assert.equal(demand.target(), 0, 'no spare before sessions are used');
    demand.record();
    assert.equal(demand.target(), 1);
    now += 60_000;
    for (let i = 0; i < 3; i++) {
      demand.record();
      now += 500;
    }
    assert.equal(demand.target(), 3, 'three starts within two seconds');
    now += 5_000;
    demand.record();
    assert.equal(demand.target(), 3, 'a lone start later does not lower the burst');
    for (let i = 0; i < 6; i++) demand.record();
    assert.equal(demand.target(), 4, 'capped at the maximum');
    now += 10 * 60_000 + 1;
    assert.equal(demand.target(), 0, 'the window has passed');
    demand.record();
    assert.equal(demand.target(), 1);
  });
});
