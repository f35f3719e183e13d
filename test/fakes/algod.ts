// A fake Algorand node on loopback: the algod v2 and indexer v2 HTTP APIs closely enough for the real
// algosdk clients. Submitted transactions are real signed msgpack, decoded and their ed25519 signatures
// checked with algosdk and node:crypto; each confirmed transaction makes a round (like a dev-mode node),
// moves balances (fees, amounts, the 0.1 ALGO minimum balance) and is served back, note and all,
// through the indexer's transaction search. Replies are built from algosdk's own models.
import { createPublicKey, verify } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import algosdk from 'algosdk';

export interface StoredTxn {
  id: string;
  round: number;
  intraRound: number;
  roundTime: number;
  signed: algosdk.SignedTransaction;
  sender: string;
  receiver: string;
  amount: bigint;
  note: Uint8Array;
}

export interface FakeChain {
  algodUrl: string;
  indexerUrl: string;
  token: string;
  /** testnet-v1.0 or mainnet-v1.0: what the node says it is (settable, as if another node answered). */
  genesisId: string;
  /** While true every request answers 503, as an unreachable node would. */
  down: boolean;
  /** While true the indexer ignores min-round and serves every transaction again (a replay). */
  replayAll: boolean;
  /** Requests the algod and indexer have had so far. */
  readonly requests: number;
  readonly transactions: StoredTxn[];
  round(): number;
  balance(address: string): bigint;
  fund(address: string, microAlgos: number | bigint): void;
  close(): Promise<void>;
}

export const MIN_BALANCE = 100_000n;
const MIN_FEE = 1_000n;
const MAX_NOTE = 1_024;
const GENESIS_HASH = new Uint8Array(32).fill(7);

export async function startFakeChain(options: { token?: string; genesisId?: string } = {}): Promise<FakeChain> {
  const token = options.token ?? 'a'.repeat(64);
  const balances = new Map<string, bigint>();
  const transactions: StoredTxn[] = [];
  let round = 1;
  const chain = {
    genesisId: options.genesisId ?? 'testnet-v1.0',
    down: false,
    replayAll: false,
    requests: 0,
  };

  function submit(bytes: Uint8Array): StoredTxn {
    let signed: algosdk.SignedTransaction;
    try {
      signed = algosdk.decodeSignedTransaction(bytes);
    } catch (err) {
      throw new HttpError(400, `msgpack decode error: ${(err as Error).message}`);
    }
    const txn = signed.txn;
    const id = txn.txID();
    if (transactions.some((t) => t.id === id)) throw new HttpError(400, `transaction already in ledger: ${id}`);
    if (txn.genesisID !== chain.genesisId) throw new HttpError(400, `transaction genesis id ${txn.genesisID} does not match ${chain.genesisId}`);
    if (!signed.sig || !verifySignature(txn, signed.sig)) throw new HttpError(400, `transaction ${id}: invalid signature`);
    const next = BigInt(round + 1);
    if (txn.firstValid > next || txn.lastValid < next) throw new HttpError(400, `transaction ${id}: round ${next} outside of ${txn.firstValid}--${txn.lastValid}`);
    if (txn.fee < MIN_FEE) throw new HttpError(400, `transaction ${id}: fee ${txn.fee} below threshold ${MIN_FEE}`);
    if ((txn.note?.length ?? 0) > MAX_NOTE) throw new HttpError(400, `transaction ${id}: note too big: ${txn.note.length} > ${MAX_NOTE}`);
    if (txn.type !== algosdk.TransactionType.pay || !txn.payment) throw new HttpError(400, `transaction ${id}: only payments are supported by this fake`);
    const sender = txn.sender.toString();
    const receiver = txn.payment.receiver.toString();
    const amount = txn.payment.amount;
    const senderAfter = (balances.get(sender) ?? 0n) - amount - txn.fee;
    if (senderAfter < MIN_BALANCE) throw new HttpError(400, `TransactionPool.Remember: transaction ${id}: overspend (account ${sender}, data {_struct:{} MicroAlgos:{Raw:${balances.get(sender) ?? 0n}}}, tried to spend {${amount + txn.fee}})`);
    const receiverAfter = (sender === receiver ? senderAfter : (balances.get(receiver) ?? 0n)) + amount;
    if (receiverAfter < MIN_BALANCE) throw new HttpError(400, `TransactionPool.Remember: transaction ${id}: account ${receiver} balance ${receiverAfter} below min ${MIN_BALANCE}`);
    balances.set(sender, senderAfter);
    balances.set(receiver, receiverAfter);
    round += 1;
    const stored = { id, round, intraRound: 0, roundTime: Math.floor(Date.now() / 1000), signed, sender, receiver, amount, note: txn.note ?? new Uint8Array() };
    transactions.push(stored);
    return stored;
  }

  const algod = await listen(async (req, url, body) => {
    if (req.headers['x-algo-api-token'] !== token) return [401, { message: 'Invalid API Token' }];
    const path = url.pathname;
    if (req.method === 'GET' && path === '/health') return [200, null];
    if (req.method === 'GET' && path === '/versions') return [200, { genesis_id: chain.genesisId, genesis_hash_b64: Buffer.from(GENESIS_HASH).toString('base64'), versions: ['v2'], build: { major: 3, minor: 0, build_number: 0, commit_hash: 'fake', branch: 'fake', channel: 'dev' } }];
    if (req.method === 'GET' && path === '/v2/status') return [200, status()];
    if (req.method === 'GET' && path.startsWith('/v2/status/wait-for-block-after/')) {
      // A dev-mode node makes the block it is asked to wait for.
      if (Number(path.split('/').pop()) >= round) round += 1;
      return [200, status()];
    }
    if (req.method === 'GET' && path === '/v2/transactions/params') {
      return [200, new algosdk.modelsv2.TransactionParametersResponse({ consensusVersion: 'future', fee: 0, genesisHash: GENESIS_HASH, genesisId: chain.genesisId, lastRound: round, minFee: MIN_FEE })];
    }
    if (req.method === 'POST' && path === '/v2/transactions') return [200, new algosdk.modelsv2.PostTransactionsResponse({ txid: submit(body).id })];
    const pending = /^\/v2\/transactions\/pending\/([A-Z2-7]{52})$/.exec(path);
    if (req.method === 'GET' && pending) {
      const found = transactions.find((t) => t.id === pending[1]);
      if (!found) return [404, { message: 'txn does not exist' }];
      const info = new algosdk.modelsv2.PendingTransactionResponse({ poolError: '', txn: found.signed, confirmedRound: found.round });
      return url.searchParams.get('format') === 'msgpack' ? [200, Buffer.from(algosdk.encodeMsgpack(info)), 'application/msgpack'] : [200, info];
    }
    const account = /^\/v2\/accounts\/([A-Z2-7]{58})$/.exec(path);
    if (req.method === 'GET' && account) {
      const amount = balances.get(account[1]!) ?? 0n;
      return [200, new algosdk.modelsv2.Account({
        address: account[1]!, amount, amountWithoutPendingRewards: amount, minBalance: MIN_BALANCE, pendingRewards: 0, rewards: 0, round,
        status: 'Offline', totalAppsOptedIn: 0, totalAssetsOptedIn: 0, totalCreatedApps: 0, totalCreatedAssets: 0,
      })];
    }
    return [404, { message: `no route ${req.method} ${path}` }];
  }, chain);

  const indexer = await listen(async (req, url) => {
    const path = url.pathname;
    if (req.method === 'GET' && path === '/health') return [200, { 'db-available': true, 'is-migrating': false, message: String(round), round, version: 'fake' }];
    if (req.method === 'GET' && path === '/v2/transactions') return [200, search(url.searchParams)];
    return [404, { message: `no route ${req.method} ${path}` }];
  }, chain);

  function status() {
    return new algosdk.modelsv2.NodeStatusResponse({
      catchupTime: 0, lastRound: round, lastVersion: 'future', nextVersion: 'future', nextVersionRound: round + 1,
      nextVersionSupported: true, stoppedAtUnsupportedRound: false, timeSinceLastRound: 0,
    });
  }

  function search(q: URLSearchParams): algosdk.indexerModels.TransactionsResponse {
    const address = q.get('address');
    const role = q.get('address-role');
    const minRound = chain.replayAll ? 0 : Number(q.get('min-round') ?? 0);
    const maxRound = Number(q.get('max-round') ?? Number.MAX_SAFE_INTEGER);
    const prefix = q.get('note-prefix') ? Buffer.from(q.get('note-prefix')!, 'base64') : undefined;
    const limit = Math.min(Number(q.get('limit') ?? 1000), 1000);
    const start = Number(q.get('next') ?? 0);
    const matching = transactions.filter((t) => {
      if (t.round < minRound || t.round > maxRound) return false;
      if (prefix && !Buffer.from(t.note).subarray(0, prefix.length).equals(prefix)) return false;
      if (!address) return true;
      if (role === 'sender') return t.sender === address;
      if (role === 'receiver') return t.receiver === address;
      return t.sender === address || t.receiver === address;
    });
    const page = matching.slice(start, start + limit);
    const nextToken = start + limit < matching.length ? String(start + limit) : undefined;
    return new algosdk.indexerModels.TransactionsResponse({ currentRound: round, transactions: page.map(toIndexer), ...(nextToken ? { nextToken } : {}) });
  }

  function toIndexer(t: StoredTxn): algosdk.indexerModels.Transaction {
    const txn = t.signed.txn;
    return new algosdk.indexerModels.Transaction({
      id: t.id, fee: txn.fee, firstValid: txn.firstValid, lastValid: txn.lastValid, sender: t.sender, confirmedRound: t.round,
      intraRoundOffset: t.intraRound, roundTime: t.roundTime, txType: 'pay', note: t.note, genesisId: txn.genesisID,
      paymentTransaction: new algosdk.indexerModels.TransactionPayment({ amount: t.amount, receiver: t.receiver }),
      signature: new algosdk.indexerModels.TransactionSignature({ sig: t.signed.sig }),
    });
  }

  return {
    algodUrl: algod.url,
    indexerUrl: indexer.url,
    token,
    get genesisId() { return chain.genesisId; },
    set genesisId(value: string) { chain.genesisId = value; },
    get down() { return chain.down; },
    set down(value: boolean) { chain.down = value; },
    get replayAll() { return chain.replayAll; },
    set replayAll(value: boolean) { chain.replayAll = value; },
    get requests() { return chain.requests; },
    transactions,
    round: () => round,
    balance: (address) => balances.get(address) ?? 0n,
    fund(address, microAlgos) {
      balances.set(address, (balances.get(address) ?? 0n) + BigInt(microAlgos));
      round += 1;
    },
    async close() {
      await Promise.all([algod.close(), indexer.close()]);
    },
  };
}

function verifySignature(txn: algosdk.Transaction, sig: Uint8Array): boolean {
  const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(txn.sender.publicKey).toString('base64url') }, format: 'jwk' });
  return verify(null, txn.bytesToSign(), key, sig);
}

class HttpError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

type Reply = [number, unknown, string?];
type Handler = (req: IncomingMessage, url: URL, body: Uint8Array) => Promise<Reply>;

async function listen(handler: Handler, chain: { down: boolean; requests: number }): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    chain.requests++;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (chain.down) return send(res, [503, { message: 'node is unavailable' }]);
      handler(req, new URL(req.url ?? '/', 'http://fake'), new Uint8Array(Buffer.concat(chunks)))
        .then((reply) => send(res, reply))
        .catch((err: unknown) => send(res, [err instanceof HttpError ? err.status : 500, { message: (err as Error).message }]));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

function send(res: ServerResponse, [status, body, type]: Reply): void {
  if (body instanceof Buffer) {
    res.writeHead(status, { 'content-type': type ?? 'application/octet-stream' }).end(body);
    return;
  }
  const text = body === null ? '' : isEncodable(body) ? algosdk.encodeJSON(body) : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json' }).end(text);
}

const isEncodable = (value: unknown): value is algosdk.Encodable => typeof (value as algosdk.Encodable)?.toEncodingData === 'function';
