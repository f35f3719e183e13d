// The inbound pipeline, one transaction at a time: a txid seen before is ignored; a payment's amount
// becomes the sender's credits; a chainchat note is matched to its key (a PSK by id, or an X25519
// agreement), its chunk stored until the message is whole, then opened and the sender authorised
// (owner, PSK contact, allowlist). Authorised text goes to the slash commands or to the sender's
// conversation with its agent; a stranger is refused and never answered.
import algosdk from 'algosdk';
import type { Account } from './accounts.js';
import type { ChainTxn } from './chain.js';
import { runCommand } from './commands.js';
import { converse } from './conversation.js';
import { openNotes, parseNote, type Envelope } from './envelope.js';
import { agree } from './keys.js';
import { announce } from './outbound.js';
import type { State } from './state.js';

export type Standing = 'owner' | 'contact' | 'allowlisted' | 'open';

interface Opened {
  text: string;
  keyRef: string;
  /** A PSK contact's key or the exchange key: holding it is the sender's standing. */
  pskContactId: string | null | undefined;
  x25519Public?: string;
}

export async function handleTxn(s: State, account: Account, txn: ChainTxn): Promise<void> {
  const tenantId = account.tenantId;
  if (txn.receiver !== account.address || txn.sender === account.address) return;
  if (!(await s.inbound.firstSight(tenantId, txn.id))) return;
  if (txn.amount > 0n && s.config.creditsPerMicroAlgo > 0) {
    await s.conversations.ensure(tenantId, txn.sender, s.config.initialCredits);
    await s.conversations.addCredits(tenantId, txn.sender, Number(txn.amount) * s.config.creditsPerMicroAlgo);
  }
  const envelope = parseNote(txn.note);
  if (!envelope || envelope.mode === 'M') return;
  const chunks = await s.inbound.addChunk(tenantId, txn.sender, envelope.msgId.toString('hex'), { idx: envelope.index, total: envelope.total, note: Buffer.from(txn.note), txid: txn.id });
  if (!chunks) return;
  const envelopes = chunks.map((c) => parseNote(c.note)!);
  const txids = chunks.map((c) => c.txid);
  const opened = await open(s, account, txn.sender, envelopes);
  const standing = opened && (await standingOf(s, tenantId, txn.sender, opened));
  if (!opened || !standing) {
    s.ctx.host.log('info', `chainchat: refused a message from ${txn.sender} (${opened ? 'not allowed' : 'no key opens it'})`);
    await s.conversations.ensure(tenantId, txn.sender, s.config.initialCredits);
    announce(s, tenantId, await s.conversations.record(tenantId, txn.sender, 'refused', null, txids));
    return;
  }
  await s.conversations.ensure(tenantId, txn.sender, s.config.initialCredits);
  await s.conversations.update(tenantId, txn.sender, { keyRef: opened.keyRef, ...(opened.x25519Public ? { x25519Public: opened.x25519Public } : {}) });
  announce(s, tenantId, await s.conversations.record(tenantId, txn.sender, 'inbound', opened.text, txids));
  const text = opened.text.trim();
  if (text.startsWith('/')) return runCommand(s, account, txn.sender, standing, text);
  converse(s, account, txn.sender, standing, text);
}

/** The text, with the key that opened it; undefined when no key of ours does. */
async function open(s: State, account: Account, sender: string, envelopes: Envelope[]): Promise<Opened | undefined> {
  const first = envelopes[0]!;
  const parties = { sender: algosdk.Address.fromString(sender).publicKey, receiver: account.signer.addr.publicKey };
  if (first.mode === 'P') {
    for (const key of await s.keys.byKeyId(account.tenantId, first.keyField.toString('hex'))) {
      try {
        return { text: openNotes(envelopes, key.psk, parties), keyRef: `psk:${key.id}`, pskContactId: key.contactId };
      } catch {
        // another key with the same id (vanishingly rare), or a forged note: try the next
      }
    }
    return undefined;
  }
  try {
    const known = (await s.conversations.participant(account.tenantId, sender))?.x25519Public;
    const theirs = first.keyField.toString('base64');
    // The first X25519 key an address used is kept: a note under another key from it is refused.
    if (known && known !== theirs) return undefined;
    const text = openNotes(envelopes, agree(account.x25519.privateKey, first.keyField), parties);
    return { text, keyRef: 'x25519', pskContactId: undefined, x25519Public: theirs };
  } catch {
    return undefined;
  }
}

/** Why the sender may talk, or undefined when it may not. */
async function standingOf(s: State, tenantId: string, sender: string, opened: Opened): Promise<Standing | undefined> {
  const listed = await s.allowlist.get(tenantId, sender);
  if (listed?.owner) return 'owner';
  if (opened.pskContactId !== undefined) {
    if (opened.pskContactId === null) return 'contact'; // the exchange key
    const contact = await s.contacts.get(tenantId, opened.pskContactId);
    if (contact && (contact.address === sender || (contact.address === null && (await s.contacts.bind(tenantId, contact.id, sender))))) return 'contact';
    return undefined;
  }
  if (listed) return 'allowlisted';
  if ((await s.contacts.byAddress(tenantId, sender)) !== undefined) return 'contact';
  if (s.config.openWhenEmpty && (await s.allowlist.isEmpty(tenantId))) return 'open';
  return undefined;
}
