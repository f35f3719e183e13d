// The chainchat suites' world: a fake algod/indexer, a fake Anthropic, a real server pointed at both,
// and participants: Algorand accounts driven by the real algosdk that seal and open notes as a
// participant's wallet app would (the envelope code is the protocol, shared with the extension).
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import algosdk from 'algosdk';
import { keyIdOf, openNotes, parseNote, sealNotes, type Envelope } from '../../extensions/chainchat/envelope.js';
import { agree, x25519PublicRaw } from '../../extensions/chainchat/keys.js';
import { FIXTURES } from '../agents/support.js';
import { startFakeAnthropic, type FakeAnthropic } from '../fakes/anthropic.js';
import { startFakeChain, type FakeChain } from '../fakes/algod.js';
import { waitFor } from '../helpers/wait.js';

export interface Fakes {
  chain: FakeChain;
  anthropic: FakeAnthropic;
  env: Record<string, string>;
  close(): Promise<void>;
}

export async function startFakes(reply = 'Hello from your agent.'): Promise<Fakes> {
  const chain = await startFakeChain();
  const anthropic = await startFakeAnthropic({ apiKey: 'test', script: [reply] });
  return {
    chain,
    anthropic,
    env: {
      ROOST_EXTENSION_DIRS: FIXTURES,
      ANTHROPIC_API_KEY: 'test',
      ANTHROPIC_BASE_URL: anthropic.url,
      ROOST_ALGOD_URL: chain.algodUrl,
      ROOST_INDEXER_URL: chain.indexerUrl,
      ROOST_ALGOD_TOKEN: chain.token,
      ROOST_EXT_CHAINCHAT_POLL_MS: '100',
      ROOST_CLOCK: 'test',
    },
    async close() {
      await anthropic.close();
      await chain.close();
    },
  };
}

export type Key = { mode: 'P'; psk: Buffer } | { mode: 'X'; roostX25519: Buffer };

/** Someone with a wallet: sends sealed notes to Roost and reads what Roost sent back. */
export class Participant {
  readonly account = algosdk.generateAccount();
  readonly address = this.account.addr.toString();
  private readonly x25519: { privateKey: KeyObject; publicKey: Buffer };
  private readonly algod: algosdk.Algodv2;

  constructor(private readonly chain: FakeChain) {
    const { privateKey } = generateKeyPairSync('x25519');
    this.x25519 = { privateKey, publicKey: x25519PublicRaw(privateKey) };
    this.algod = new algosdk.Algodv2(chain.token, chain.algodUrl);
    chain.fund(this.address, 5_000_000);
  }

  private secret(key: Key): { secret: Buffer; keyField: Buffer } {
    if (key.mode === 'P') return { secret: key.psk, keyField: keyIdOf(key.psk) };
    return { secret: agree(this.x25519.privateKey, key.roostX25519), keyField: this.x25519.publicKey };
  }

  /** Sends `text` sealed with `key` to `to`; answers the txids. */
  async send(to: string, key: Key, text: string, amount = 0): Promise<string[]> {
    const { secret, keyField } = this.secret(key);
    const parties = { sender: this.account.addr.publicKey, receiver: algosdk.Address.fromString(to).publicKey };
    return this.sendNotes(to, sealNotes(text, { mode: key.mode, secret, keyField, parties, maxChunks: 255 }), amount);
  }

  async sendNotes(to: string, notes: Uint8Array[], amount = 0): Promise<string[]> {
    const suggestedParams = await this.algod.getTransactionParams().do();
    const ids: string[] = [];
    for (const note of notes) {
      const txn = algosdk.makePaymentTxnWithSuggestedParamsFromObject({ sender: this.account.addr, receiver: to, amount, note, suggestedParams });
      await this.algod.sendRawTransaction(txn.signTxn(this.account.sk)).do();
      await algosdk.waitForConfirmation(this.algod, txn.txID(), 4);
      ids.push(txn.txID());
    }
    return ids;
  }

  /** Every message `from` sent this participant, opened with `key` (those it does not open are left out). */
  received(from: string, key: Key): Array<{ text: string; txids: string[] }> {
    const byMessage = new Map<string, Array<{ envelope: Envelope; txid: string }>>();
    for (const t of this.chain.transactions) {
      if (t.sender !== from || t.receiver !== this.address) continue;
      const envelope = parseNote(t.note);
      if (!envelope) continue;
      const id = envelope.msgId.toString('hex');
      byMessage.set(id, [...(byMessage.get(id) ?? []), { envelope, txid: t.id }]);
    }
    const out: Array<{ text: string; txids: string[] }> = [];
    const parties = { sender: algosdk.Address.fromString(from).publicKey, receiver: this.account.addr.publicKey };
    for (const parts of byMessage.values()) {
      if (parts.length !== parts[0]!.envelope.total) continue;
      const secret = key.mode === 'P' ? key.psk : agree(this.x25519.privateKey, parts[0]!.envelope.keyField);
      try {
        out.push({ text: openNotes(parts.map((p) => p.envelope), secret, parties), txids: parts.map((p) => p.txid) });
      } catch {
        // sealed with another key
      }
    }
    return out;
  }

  /** Waits for a message from `from` matching `match`. */
  reply(from: string, key: Key, match: (text: string) => boolean, timeoutMs = 30_000): Promise<{ text: string; txids: string[] }> {
    return waitFor(`a reply to ${this.address.slice(0, 8)} matching ${match}`, async () => this.received(from, key).find((m) => match(m.text)), timeoutMs);
  }
}

/** Whether any note on the chain holds `text` in the clear. */
export function plaintextOnChain(chain: FakeChain, text: string): boolean {
  const needle = Buffer.from(text, 'utf8');
  return chain.transactions.some((t) => Buffer.from(t.note).includes(needle));
}

/** Sets chainchat up for a tenant as its owner does (choosing the network), and answers its status. */
export async function setUpChainchat(server: { api(method: string, path: string, options?: { key?: string; body?: unknown }): Promise<{ status: number; text: string; body: any }> }, key?: string): Promise<{ address: string; x25519PublicKey: string; network: string }> {
  const chosen = await server.api('POST', '/api/chainchat/network', { key, body: { network: 'testnet' } });
  if (chosen.status !== 200) throw new Error(`setting chainchat up answered ${chosen.status}: ${chosen.text}`);
  const status = await server.api('GET', '/api/chainchat/status', { key });
  if (!status.body.enabled) throw new Error(`chainchat is still not set up: ${status.text}`);
  return status.body;
}
