// Sending to a participant: the text sealed with the key the participant talks with (the pre-shared
// key it last wrote with, or an X25519 agreement with the key it sent), split into notes, submitted
// and confirmed, then recorded and announced (chainchat_message) to the tenant's WebSocket subscribers.
import algosdk from 'algosdk';
import { conflict } from '../../protocol/errors.js';
import { agree } from './keys.js';
import { sealNotes, keyIdOf, type Mode } from './envelope.js';
import type { Account } from './accounts.js';
import type { Direction, Message } from './conversations.js';
import { chainOf } from './chain.js';
import type { State } from './state.js';

export const STREAM_TOPIC = 'chainchat';

interface Sealing {
  mode: Mode;
  secret: Buffer;
  keyField: Buffer;
}

async function sealingFor(s: State, account: Account, address: string): Promise<Sealing> {
  const participant = await s.conversations.participant(account.tenantId, address);
  const ref = participant?.keyRef ?? null;
  if (ref?.startsWith('psk:')) {
    const key = await s.keys.byId(account.tenantId, ref.slice(4));
    if (key) return { mode: 'P', secret: key.psk, keyField: keyIdOf(key.psk) };
  }
  if (participant?.x25519Public) {
    return { mode: 'X', secret: agree(account.x25519.privateKey, Buffer.from(participant.x25519Public, 'base64')), keyField: account.x25519.publicKey };
  }
  const contact = await s.contacts.byAddress(account.tenantId, address);
  const key = contact && (await s.keys.ofContact(account.tenantId, contact.id));
  if (key) return { mode: 'P', secret: key.psk, keyField: keyIdOf(key.psk) };
  throw conflict(`there is no key to encrypt for ${address} yet: it must write first (or be a PSK contact)`);
}

/** Sends `text` to `address` on-chain; answers the recorded message with its txids. */
export async function sendText(s: State, account: Account, address: string, text: string): Promise<Message> {
  const sealing = await sealingFor(s, account, address);
  const parties = { sender: account.signer.addr.publicKey, receiver: algosdk.Address.fromString(address).publicKey };
  const notes = sealNotes(text, { ...sealing, parties, maxChunks: s.config.maxChunks });
  const txids = await chainOf(s, account).send(account.signer, address, notes);
  return announce(s, account.tenantId, await s.conversations.record(account.tenantId, address, 'outbound', text, txids));
}

export function announce(s: State, tenantId: string, message: Message): Message {
  const event: { type: string; participant: string; direction: Direction } & Record<string, unknown> = {
    type: 'chainchat_message', participant: message.participant, direction: message.direction,
    messageId: message.id, content: message.content, txids: message.txids, createdAt: message.createdAt,
  };
  s.ctx.host.emit(STREAM_TOPIC, event, tenantId);
  return message;
}
