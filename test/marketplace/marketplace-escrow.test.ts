import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
import { createAgent, FIXTURES, registerTenant, startServer, type Tenant } from '../agents/support.js';

const INITIAL = 5_000_000;
const PRICE = 1_200_000;

describe('marketplace: uses of paid listings move credits through escrow', () => {
  let server: TestServer;
  let seller: Tenant;
  let buyer: Tenant;
  let sellerAgent: any;
  let buyerAgent: any;
  let listing: any;
  before(async () => {
    server = await startServer();
    [seller, buyer] = await Promise.all([registerTenant(server, 'escrow-seller'), registerTenant(server, 'escrow-buyer')]);
    sellerAgent = await createAgent(server, seller.operator, { name: 'seller' });
    buyerAgent = await createAgent(server, buyer.operator, { name: 'buyer' });
    const res = await server.api('POST', '/api/marketplace/listings', { key: seller.operator, body: { kind: 'agent', name: 'Paid reviewer', agentId: sellerAgent.id, priceMicroUnits: PRICE } });
    assert.equal(res.status, 201, res.text);
    listing = res.body;
  });
  after(() => server.cleanup());

  const balance = async (key: string, agentId: string) => {
    const res = await server.api('GET', `/api/agents/${agentId}/balance`, { key });
    assert.equal(res.status, 200, res.text);
    return res.body.balance as number;
  };
  const transactions = async (key: string, wallet: string) => {
    const res = await server.api('GET', `/api/wallets/${wallet}/messages?limit=200`, { key });
    assert.equal(res.status, 200, res.text);
    return res.body.messages as Array<{ kind: string; microUnits: number; balanceAfter: number; reference: string }>;
  };
  const use = (key: string, body: unknown) => server.api('POST', `/api/marketplace/listings/${listing.id}/use`, { key, body });

  /** Every credit is accounted for: each wallet's entries sum to its balance, and held + paid + refunded = taken. */
  async function assertBalanced(expectHeld: number): Promise<void> {
    const sellerTx = await transactions(seller.viewer, sellerAgent.wallet);
    const buyerTx = await transactions(buyer.viewer, buyerAgent.wallet);
    const sum = (tx: typeof sellerTx, kinds?: string[]) => tx.filter((t) => !kinds || kinds.includes(t.kind)).reduce((s, t) => s + t.microUnits, 0);
    assert.equal(sum(sellerTx), await balance(seller.viewer, sellerAgent.id));
    assert.equal(sum(buyerTx), await balance(buyer.viewer, buyerAgent.id));
    const taken = -sum(buyerTx, ['escrow_hold']);
    const paid = sum(sellerTx, ['escrow_release']);
    const refunded = sum(buyerTx, ['escrow_refund']);
    assert.equal(taken, paid + refunded + expectHeld, 'held = taken − paid − refunded');
    assert.equal(sum(sellerTx) + sum(buyerTx) + expectHeld, 2 * INITIAL, 'no credit created or lost');
  }

  it('holds the price on use, releases it to the seller on success', async () => {
    const res = await use(buyer.operator, { agentId: buyerAgent.id });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.state, 'held');
    assert.equal(res.body.microUnits, PRICE);
    assert.equal(await balance(buyer.viewer, buyerAgent.id), INITIAL - PRICE);
    assert.equal(await balance(seller.viewer, sellerAgent.id), INITIAL);
    await assertBalanced(PRICE);

    const settled = await server.api('POST', `/api/marketplace/uses/${res.body.id}/settle`, { key: buyer.operator, body: { outcome: 'success' } });
    assert.equal(settled.status, 200, settled.text);
    assert.equal(settled.body.state, 'released');
    assert.equal(await balance(seller.viewer, sellerAgent.id), INITIAL + PRICE);
    assert.equal(await balance(buyer.viewer, buyerAgent.id), INITIAL - PRICE);
    await assertBalanced(0);

    const twice = await server.api('POST', `/api/marketplace/uses/${res.body.id}/settle`, { key: buyer.operator, body: { outcome: 'failure' } });
    assert.equal(twice.status, 409);
    const foreign = await server.api('POST', `/api/marketplace/uses/${res.body.id}/settle`, { key: seller.owner, body: { outcome: 'failure' } });
    assert.equal(foreign.status, 404, 'another tenant\'s use is unknown');
    assert.equal((await server.api('GET', `/api/marketplace/uses/${res.body.id}`, { key: seller.viewer })).status, 404);
    await assertBalanced(0);
    const listed = await server.api('GET', `/api/marketplace/listings/${listing.id}`, { key: buyer.viewer });
    assert.equal(listed.body.useCount, 1);
  });

  it('refunds the buyer on failure, also when the outcome comes with the use', async () => {
    const before = await balance(buyer.viewer, buyerAgent.id);
    const res = await use(buyer.operator, { agentId: buyerAgent.id, outcome: 'failure', reason: 'the review never arrived' });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.state, 'refunded');
    assert.equal(res.body.outcome, 'failure');
    assert.equal(await balance(buyer.viewer, buyerAgent.id), before);
    const tx = await transactions(buyer.viewer, buyerAgent.wallet);
    assert.deepEqual(tx.slice(0, 2).map((t) => [t.kind, t.microUnits]), [['escrow_refund', PRICE], ['escrow_hold', -PRICE]]);
    await assertBalanced(0);
  });

  it('refuses a use the buyer cannot pay, in parallel too, and never overdraws', async () => {
    const poor = await createAgent(server, buyer.operator, { name: 'poor' });
    const pricey = await server.api('POST', '/api/marketplace/listings', { key: seller.operator, body: { kind: 'agent', name: 'Pricey', agentId: sellerAgent.id, priceMicroUnits: 2_000_000 } });
    const uses = await Promise.all(Array.from({ length: 5 }, () => server.api('POST', `/api/marketplace/listings/${pricey.body.id}/use`, { key: buyer.operator, body: { agentId: poor.id } })));
    assert.deepEqual(uses.map((u) => u.status).sort(), [201, 201, 409, 409, 409]);
    const refused = uses.find((u) => u.status === 409)!;
    assert.equal(refused.body.code, 'INSUFFICIENT_CREDITS');
    assert.equal(await balance(buyer.viewer, poor.id), INITIAL - 4_000_000);
    for (const u of uses.filter((x) => x.status === 201)) {
      assert.equal((await server.api('POST', `/api/marketplace/uses/${u.body.id}/settle`, { key: buyer.operator, body: { outcome: 'failure' } })).status, 200);
    }
    assert.equal(await balance(buyer.viewer, poor.id), INITIAL);
  });

  it('refuses bad uses with a clear error and moves nothing', async () => {
    const before = await balance(buyer.viewer, buyerAgent.id);
    const cases: Array<[unknown, number, RegExp]> = [
      [{}, 400, /agentId is required/],
      [{ agentId: sellerAgent.id }, 404, /not found/],
      [{ agentId: buyerAgent.id, outcome: 'maybe' }, 400, /outcome/],
      [{ agentId: buyerAgent.id, extra: true }, 400, /extra|additional/],
    ];
    for (const [body, status, message] of cases) {
      const res = await use(buyer.operator, body);
      assert.equal(res.status, status, JSON.stringify(body));
      assert.match(res.body.error, message);
    }
    const viewer = await use(buyer.viewer, { agentId: buyerAgent.id });
    assert.equal(viewer.status, 403);
    const badSettle = await server.api('POST', '/api/marketplace/uses/nope/settle', { key: buyer.operator, body: { outcome: 'success' } });
    assert.equal(badSettle.status, 404);
    const own = await server.api('POST', `/api/marketplace/listings/${listing.id}/use`, { key: seller.operator, body: { agentId: sellerAgent.id } });
    assert.equal(own.status, 409, 'the seller agent cannot pay itself');
    assert.equal(await balance(buyer.viewer, buyerAgent.id), before);
    await assertBalanced(0);
  });

  it('records a free use without touching credits', async () => {
    const free = await server.api('POST', '/api/marketplace/listings', { key: seller.operator, body: { kind: 'workflow', name: 'Free workflow' } });
    const res = await server.api('POST', `/api/marketplace/listings/${free.body.id}/use`, { key: buyer.operator, body: {} });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.state, 'free');
    assert.equal(res.body.escrowId, null);
    const settled = await server.api('POST', `/api/marketplace/uses/${res.body.id}/settle`, { key: buyer.operator, body: { outcome: 'success' } });
    assert.equal(settled.body.state, 'free');
    assert.equal(settled.body.outcome, 'success');
  });

  it('releases a use nobody settles to the seller once the settle window has passed, across a restart', async () => {
    const held = await use(buyer.operator, { agentId: buyerAgent.id });
    assert.equal(held.body.state, 'held');
    const sellerBefore = await balance(seller.viewer, sellerAgent.id);
    await server.stop();
    server = await startTestServer({ env: { ROOST_EXTENSION_DIRS: FIXTURES, ROOST_EXT_MARKETPLACE_SETTLE_SECONDS: '1' }, dataDir: server.dataDir });
    // Nothing asks the marketplace anything: it was started because it holds a use.
    const released = await waitFor('the overdue use to be released', async () => {
      const res = await server.api('GET', `/api/marketplace/uses/${held.body.id}`, { key: buyer.viewer });
      return res.body.state === 'released' ? res.body : undefined;
    }, 30_000);
    assert.equal(released.outcome, 'success');
    assert.match(released.reason, /not disputed within 1 s/);
    assert.equal(await balance(seller.viewer, sellerAgent.id), sellerBefore + PRICE);
    await assertBalanced(0);
  });
});
