// Chainchat in the dashboard against the fake algod/indexer: the account's status; a PSK contact made
// from the page, its QR code shown as an image (never as markup) whose URI a participant's wallet uses
// to write, the conversation then listed; the exchange URI rotated; the allowlist added to, relabelled,
// a bad address refused, removed.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parsePskUri } from '../../extensions/chainchat/psk-uri.js';
import { Participant, startFakes, type Fakes } from '../chainchat/support.js';
import { waitFor } from '../helpers/wait.js';
import { startDashboard, type Dashboard } from './browser.js';

describe('chainchat in the dashboard', () => {
  let fakes: Fakes;
  let d: Dashboard;
  let roost = '';
  before(async () => {
    fakes = await startFakes('Hello from your agent.');
    d = await startDashboard({ script: ['Hello from your agent.'], env: fakes.env });
    const agent = await d.server.api('POST', '/api/agents', { body: { name: 'helper', model: 'claude-sonnet-5-5' } });
    assert.equal(agent.status, 201, agent.text);
    // Rename, relabel and rotate ask through the browser's own dialogs.
    d.page.on('dialog', (dialog) => void (dialog.type() === 'prompt' ? dialog.accept(dialog.defaultValue() === 'Alice' ? 'Alice B' : 'wallet two') : dialog.accept()));
  });
  after(async () => {
    await d.close();
    await fakes.close();
  });

  it('sets chainchat up only when asked, then shows the status, makes a PSK contact whose QR code is an image, and lists the conversation its wallet starts', async () => {
    const { page } = d;
    await d.open('chainchat', 'Chainchat');
    await page.getByRole('status').filter({ hasText: 'Not set up.' }).waitFor();
    const viewed = await d.server.api('GET', '/api/chainchat/status');
    assert.deepEqual([viewed.body.enabled, viewed.body.address], [false, null], 'viewing the page sets nothing up');
    assert.equal(fakes.chain.requests, 0, 'and asks no node anything');
    await page.getByRole('button', { name: 'Set up chainchat on testnet' }).click();
    roost = await waitFor('the account made by the set-up', async () => (await d.server.api('GET', '/api/chainchat/status')).body.address ?? undefined);
    fakes.chain.fund(roost, 50_000_000);
    await page.getByText(roost).first().waitFor();
    await page.getByText(/reachable, round \d+/).waitFor();
    await page.getByLabel('Contact name').fill('Alice');
    await page.getByRole('button', { name: 'Add contact' }).click();
    await page.getByRole('list', { name: 'PSK contacts' }).getByText('Alice').waitFor();
    await page.getByRole('button', { name: 'Show the QR code of Alice' }).click();
    const image = page.getByRole('img', { name: 'QR code of the PSK contact Alice' });
    await image.waitFor();
    assert.match((await image.getAttribute('src'))!, /^data:image\/svg\+xml;charset=utf-8,%3Csvg/);
    assert.ok(await image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0), 'the QR code is drawn');
    assert.equal(await page.locator('main svg').count(), 0, 'the SVG text never becomes markup of the page');
    const uri = parsePskUri((await page.locator('figure.qr code').textContent())!);
    assert.deepEqual([uri.addr, uri.label], [roost, 'Alice']);
    await d.checkAccessibility('the chainchat page');

    const alice = new Participant(fakes.chain);
    await alice.send(roost, { mode: 'P', psk: uri.psk }, 'hello over the chain');
    await alice.reply(roost, { mode: 'P', psk: uri.psk }, (t) => t === 'Hello from your agent.', 60_000);
    const conversations = page.getByRole('table', { name: 'Conversations' });
    await conversations.getByText(alice.address).waitFor();
    await conversations.getByText('hello over the chain').waitFor();
    // The contact is bound to the first address that wrote with its key: a new visit shows it.
    await page.reload();
    await page.getByRole('list', { name: 'PSK contacts' }).getByText(alice.address).waitFor();
    await page.getByRole('button', { name: 'Rename Alice' }).click();
    await page.getByRole('list', { name: 'PSK contacts' }).getByText('Alice B').waitFor();
    await d.shot('chainchat');
  });

  it('rotates the exchange URI, keeping the previous one for the grace period', async () => {
    const { page } = d;
    await d.open('chainchat', 'Chainchat');
    const current = page.getByLabel('Current exchange URI');
    const before = (await current.textContent())!;
    assert.match(before, /^roost-psk:\/\/v1\?/);
    await page.getByRole('button', { name: 'Rotate' }).click();
    await page.getByRole('status').filter({ hasText: 'Rotated. The previous URI is accepted until' }).waitFor();
    await page.waitForFunction((old) => document.querySelector('[aria-label="Current exchange URI"]')?.textContent !== old, before);
  });

  it('adds to the allowlist, relabels, refuses a bad address with the server\'s reason, and removes', async () => {
    const { page } = d;
    await d.open('chainchat', 'Chainchat');
    const bob = new Participant(fakes.chain);
    await page.getByLabel('Algorand address').fill('NOT-AN-ADDRESS');
    await page.getByRole('button', { name: 'Add to the allowlist' }).click();
    await page.locator('section.card', { has: page.getByRole('heading', { name: 'Allowlist' }) }).getByRole('alert').waitFor();
    await page.getByLabel('Algorand address').fill(bob.address);
    await page.getByLabel('Label', { exact: true }).fill('wallet one');
    await page.getByRole('button', { name: 'Add to the allowlist' }).click();
    const table = page.getByRole('table', { name: 'Allowlist' });
    await table.getByText('wallet one').waitFor();
    await page.getByRole('button', { name: 'Relabel wallet one' }).click();
    await table.getByText('wallet two').waitFor();
    assert.equal((await d.server.api('GET', '/api/allowlist')).body.entries[0].label, 'wallet two');
    await d.checkAccessibility('the allowlist');
    await page.getByRole('button', { name: 'Remove wallet two from the allowlist' }).click();
    await page.getByText('Nobody is on the allowlist.').waitFor();
  });
});
