// The fake algod/indexer refuses what a real node refuses, through the real algosdk.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import algosdk from 'algosdk';
import { startFakeChain, type FakeChain } from './algod.js';

describe('the fake algod and indexer', () => {
  let chain: FakeChain;
  let algod: algosdk.Algodv2;
  let indexer: algosdk.Indexer;
  const alice = algosdk.generateAccount();
  const bob = algosdk.generateAccount();

  const pay = async (from: algosdk.Account, to: algosdk.Account, amount: number, note?: Uint8Array, sign = from) => {
    const suggestedParams = await algod.getTransactionParams().do();
    const txn = algosdk.makePaymentTxnWithSuggestedParamsFromObject({ sender: from.addr, receiver: to.addr, amount, note, suggestedParams });
    return { txn, signed: txn.signTxn(sign.sk) };
  };

  before(async () => {
    chain = await startFakeChain();
    algod = new algosdk.Algodv2(chain.token, chain.algodUrl, new URL(chain.algodUrl).port);
    indexer = new algosdk.Indexer('', chain.indexerUrl, new URL(chain.indexerUrl).port);
    chain.fund(alice.addr.toString(), 1_000_000);
    chain.fund(bob.addr.toString(), 1_000_000);
  });
  after(() => chain.close());

  it('confirms a signed payment, moves the balances and serves it back with its note', async () => {
    const { txn, signed } = await pay(alice, bob, 1_000, new Uint8Array([1, 2, 3]));
    await algod.sendRawTransaction(signed).do();
    const confirmed = await algosdk.waitForConfirmation(algod, txn.txID(), 4);
    assert.ok(confirmed.confirmedRound! > 0n);
    assert.equal((await algod.accountInformation(bob.addr).do()).amount, 1_001_000n);
    const found = await indexer.searchForTransactions().address(bob.addr).addressRole('receiver').do();
    assert.deepEqual([found.transactions[0]!.id, [...found.transactions[0]!.note!]], [txn.txID(), [1, 2, 3]]);
    await assert.rejects(algod.sendRawTransaction(signed).do(), /already in ledger/);
  });

  it('refuses a forged signature, an overspend, a wrong token and an unreachable node', async () => {
    await assert.rejects(algod.sendRawTransaction((await pay(alice, bob, 1, undefined, bob)).signed).do(), /invalid signature/);
    await assert.rejects(algod.sendRawTransaction((await pay(alice, bob, 5_000_000)).signed).do(), /overspend/);
    await assert.rejects(new algosdk.Algodv2('wrong', chain.algodUrl, new URL(chain.algodUrl).port).status().do(), /Invalid API Token/);
    chain.down = true;
    try {
      await assert.rejects(algod.status().do(), /unavailable/);
    } finally {
      chain.down = false;
    }
  });
});
