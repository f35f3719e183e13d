// PlanCache (extensions/plans/contract.ts): a caller keeps the plans it read until plans.changed; a read
// that a change overtook is not kept.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PLANS_EVENTS, PlanCache, type TenantPlan } from '../../extensions/plans/contract.js';

const FREE: TenantPlan = { plan: 'free', limits: { agents: 1, concurrentSessions: 1, projects: 1, creditsPerMonth: 1, members: 1 }, billingStatus: 'none' };

describe('PlanCache', () => {
  it('keeps a plan until plans.changed, and ignores other topics', () => {
    const cache = new PlanCache();
    cache.keep('t1', FREE, cache.generation);
    cache.heard('agent.a1');
    assert.deepEqual(cache.get('t1'), FREE);
    cache.heard(PLANS_EVENTS.changed);
    assert.equal(cache.get('t1'), undefined);
  });

  it('does not keep a read that began before a change', () => {
    const cache = new PlanCache();
    const readAt = cache.generation;
    cache.heard(PLANS_EVENTS.changed); // the change arrives while the read is under way
    cache.keep('t1', FREE, readAt);
    assert.equal(cache.get('t1'), undefined);
    cache.keep('t1', FREE, cache.generation);
    assert.deepEqual(cache.get('t1'), FREE);
  });
});
