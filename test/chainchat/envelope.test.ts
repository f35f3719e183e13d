// The note format on its own: sealing and opening, chunking, and what does not open.
import assert from 'node:assert/strict';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { chunkCapacity, keyIdOf, MAX_NOTE_BYTES, openNotes, parseNote, sealNotes } from '../../extensions/chainchat/envelope.js';
import { agree, x25519PublicRaw } from '../../extensions/chainchat/keys.js';
import { formatPskUri, parsePskUri } from '../../extensions/chainchat/psk-uri.js';

const parties = { sender: randomBytes(32), receiver: randomBytes(32) };
const psk = randomBytes(32);
const seal = (text: string, maxChunks = 16) => sealNotes(text, { mode: 'P', secret: psk, keyField: keyIdOf(psk), parties, maxChunks });
const open = (notes: Uint8Array[], secret = psk, who = parties) => openNotes(notes.map((n) => parseNote(n)!), secret, who);

describe('chainchat notes', () => {
  it('seal a short text in one note that opens to it, with a fresh nonce each time', () => {
    const [note] = seal('hello');
    assert.ok(note!.length <= MAX_NOTE_BYTES);
    assert.equal(open([note!]), 'hello');
    assert.notDeepEqual(seal('hello')[0], note);
    assert.equal(Buffer.from(note!).includes(Buffer.from('hello')), false);
  });

  it('split a long text into full notes, reassembled in any order, and refuse one over the limit', () => {
    const text = 'ü'.repeat(chunkCapacity('P') * 2); // two bytes a character: four notes
    const notes = seal(text);
    assert.equal(notes.length, 4);
    assert.ok(notes.every((n) => n.length <= MAX_NOTE_BYTES));
    assert.equal(open([...notes].reverse()), text);
    assert.throws(() => open(notes.slice(1)), /whole message/);
    assert.throws(() => seal(text, 3), /needs 4 notes, over the limit of 3/);
  });

  it('do not open with another key, between other parties, or once a byte changed', () => {
    const notes = seal('secret');
    assert.throws(() => open(notes, randomBytes(32)));
    assert.throws(() => open(notes, psk, { sender: parties.receiver, receiver: parties.sender }));
    const tampered = Buffer.from(notes[0]!);
    tampered[tampered.length - 20]! ^= 1;
    assert.throws(() => open([tampered]));
  });

  it('agree an X25519 secret both sides derive alike', () => {
    const a = generateKeyPairSync('x25519').privateKey;
    const b = generateKeyPairSync('x25519').privateKey;
    const shared = agree(a, x25519PublicRaw(b));
    assert.deepEqual(shared, agree(b, x25519PublicRaw(a)));
    const notes = sealNotes('via x25519', { mode: 'X', secret: shared, keyField: x25519PublicRaw(a), parties, maxChunks: 1 });
    assert.deepEqual(parseNote(notes[0]!)!.keyField, x25519PublicRaw(a));
    assert.equal(open(notes, agree(b, parseNote(notes[0]!)!.keyField)), 'via x25519');
    assert.throws(() => agree(a, Buffer.alloc(32)), /low-order/);
  });

  it('leave notes that are not chainchat notes alone', () => {
    for (const note of [new Uint8Array(), Buffer.from('hello'), Buffer.from('RC\x01Z' + 'x'.repeat(60)), Buffer.from('RC\x01P')]) assert.equal(parseNote(note), undefined);
    const bad = Buffer.from(seal('x')[0]!);
    bad[3 + 1 + 8 + 8] = 5; // index past total
    assert.equal(parseNote(bad), undefined);
  });

  it('round-trip the exchange URI and refuse a malformed one', () => {
    const uri = formatPskUri({ addr: 'ADDR', psk, label: 'Alice & Bob', network: 'mainnet' });
    assert.match(uri, /^roost-psk:\/\/v1\?addr=ADDR&psk=[\w-]{43}&label=Alice\+%26\+Bob&network=mainnet$/);
    assert.deepEqual(parsePskUri(uri), { addr: 'ADDR', psk, label: 'Alice & Bob', network: 'mainnet' });
    assert.throws(() => parsePskUri('https://example.com/?psk=x'), /roost-psk/);
    assert.throws(() => parsePskUri('roost-psk://v1?addr=A&psk=short&network=testnet'), /32 bytes/);
    assert.throws(() => parsePskUri(uri.replace('mainnet', 'moonnet')), /network/);
  });
});
