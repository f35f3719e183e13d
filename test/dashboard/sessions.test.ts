// A session started from the dashboard against the fake Anthropic API: its stream (thinking, text, a
// tool call) shows live, the tool use is approved with a click, the cost shows, and it is stopped; then
// a chat with an agent over the WebSocket.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { waitFor } from '../helpers/wait.js';
import { startDashboard, UI_TIMEOUT, type Dashboard } from './browser.js';

describe('sessions and chat in the dashboard', () => {
  let d: Dashboard;
  let folder: string;
  let agent: any;
  before(async () => {
    folder = await mkdtemp(join(tmpdir(), 'roost-ui-session-'));
    d = await startDashboard({
      script: [
        { thinking: 'The user wants a file.', text: 'I will write notes.txt now.', toolUses: [{ name: 'write_file', input: { path: 'notes.txt', content: 'written from the dashboard' } }], usage: { input_tokens: 1200, output_tokens: 300 } },
        { text: 'All done: notes.txt is written.', usage: { input_tokens: 1500, output_tokens: 40 } },
        'Hello from the chat.',
      ],
    });
    agent = (await d.server.api('POST', '/api/agents', { body: { name: 'Writer', permissionMode: 'default' } })).body;
    await d.server.api('POST', '/api/projects', { body: { name: 'Notes', workingDir: folder } });
  });
  after(async () => {
    await d.close();
    await rm(folder, { recursive: true, force: true });
  });

  it('starts a session, streams it, and runs the tool use once it is allowed with a click', async () => {
    const { page } = d;
    await d.open('sessions', 'Sessions');
    await page.getByLabel('Agent').selectOption({ label: 'Writer' });
    await page.getByLabel('Project').selectOption({ label: 'Notes' });
    await page.getByLabel('First message').fill('Please write notes.txt');
    await page.getByRole('button', { name: 'Start session' }).click();
    await page.waitForURL(/#\/sessions\/[0-9a-f-]{36}$/);
    const sessionId = page.url().split('/').pop()!;

    const stream = page.getByRole('log', { name: 'Session stream' });
    await stream.getByText('Please write notes.txt').waitFor();
    await stream.getByText('I will write notes.txt now.').waitFor();
    await stream.getByText('Thinking').waitFor();
    await stream.getByText('Tool: write_file (running)').waitFor();
    await page.getByRole('heading', { name: 'Waiting for your approval' }).waitFor();
    await d.checkAccessibility('a live session waiting for approval');
    await d.shot('session-approval');
    await assert.rejects(readFile(join(folder, 'notes.txt')), 'nothing is written before the approval');

    await page.getByRole('button', { name: 'Allow write_file' }).click();
    await stream.getByText('All done: notes.txt is written.').waitFor();
    await stream.getByText(/write_file: allowed by/).waitFor();
    assert.equal(await readFile(join(folder, 'notes.txt'), 'utf8'), 'written from the dashboard');
    assert.equal(await page.getByRole('heading', { name: 'Waiting for your approval' }).count(), 0);

    const session = await waitFor('the session to finish its turns', async () => {
      const s = (await d.server.api('GET', `/api/sessions/${sessionId}`)).body;
      return s.turns === 2 && !s.busy && s.cost > 0 ? s : undefined;
    }, UI_TIMEOUT);
    const cost = `Cost so far: ${(session.cost / 1_000_000).toLocaleString('en', { maximumFractionDigits: 6 })} credits`;
    // Live, without a reload: the turns counted, the session idle between messages, the money with its unit.
    await page.locator('dl.facts dd').filter({ hasText: /^2$/ }).waitFor();
    await page.locator('.page-head .badge', { hasText: 'idle' }).waitFor();
    await page.getByText(cost).waitFor();
    await page.getByRole('heading', { level: 1, name: 'Please write notes.txt' }).waitFor();
    await page.reload();
    await page.getByText(cost).waitFor();
    await d.shot('session-stream');

    await page.getByRole('button', { name: 'Stop' }).click();
    await page.locator('.page-head .badge', { hasText: 'stopped' }).waitFor();
    assert.equal((await d.server.api('GET', `/api/sessions/${sessionId}`)).body.status, 'stopped');
    assert.equal(await page.getByRole('button', { name: 'Resume' }).count(), 0, 'a stopped session cannot be resumed');
  });

  it('lists the session with its agent, status and cost', async () => {
    const { page } = d;
    await d.open('sessions', 'Sessions');
    const row = page.getByRole('row').filter({ hasText: 'Writer' });
    await row.getByText('stopped').waitFor();
    await row.getByRole('link', { name: 'Please write notes.txt' }).waitFor();
    await row.getByText(/^[\d.]+ credits$/).waitFor();
    await d.checkAccessibility('the sessions list');
  });

  it('chats with an agent over the WebSocket', async () => {
    const { page } = d;
    await d.open(`chat/${agent.id}`, 'Chat');
    await page.getByLabel('Your message').fill('Hi there');
    await page.getByRole('button', { name: 'Send' }).click();
    const stream = page.getByRole('log', { name: 'Session stream' });
    await stream.getByText('Hi there').waitFor();
    await stream.getByText('Hello from the chat.').waitFor();
    await d.checkAccessibility('the chat page');
    await d.shot('chat');
  });
});
