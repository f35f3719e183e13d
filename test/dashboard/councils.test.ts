// A council made and launched from the dashboard; its launch page follows the stages live over the
// WebSocket, through the discussion and the votes, to the synthesis.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { defaultReply, stageOf, tagOf } from '../councils/support.js';
import { startDashboard, UI_TIMEOUT, type Dashboard } from './browser.js';

describe('councils in the dashboard', () => {
  let d: Dashboard;
  before(async () => {
    // Each member's reply depends on who asks (its system prompt names it) and on the stage asked.
    d = await startDashboard({ script: (req) => defaultReply(tagOf(req), stageOf(req)) });
    for (const tag of ['ALPHA', 'BETA', 'GAMMA']) {
      const res = await d.server.api('POST', '/api/agents', { body: { name: tag, systemPrompt: `You are council member ${tag}.` } });
      assert.equal(res.status, 201, res.text);
    }
  });
  after(() => d.close());

  it('creates a council, launches it, and watches it through every stage to the synthesis', async () => {
    const { page } = d;
    await d.open('councils', 'Councils');
    await page.getByLabel('Name', { exact: true }).fill('Deep Thought');
    for (const tag of ['ALPHA', 'BETA', 'GAMMA']) await page.getByRole('checkbox', { name: tag }).check();
    await page.getByRole('button', { name: 'Create council' }).click();
    await page.getByLabel('Prompt for Deep Thought').fill('What is the answer?');
    await d.checkAccessibility('the councils page');
    await page.getByRole('button', { name: 'Launch' }).click();
    await page.waitForURL(/#\/councils\/launch\/[0-9a-f-]{36}$/);
    await page.getByRole('heading', { level: 1, name: 'Council launch' }).waitFor();

    const discussion = page.getByRole('log', { name: 'Council discussion' });
    await discussion.getByText('ALPHA thinks the answer is 42.').waitFor();
    await page.getByRole('heading', { name: 'Synthesis' }).waitFor({ timeout: UI_TIMEOUT * 2 });
    await page.getByText(/the answer is 42\.\s+Votes: 3 approve, 0 reject, 0 abstain\./).waitFor();
    await page.locator('.stage-current', { hasText: 'completed' }).waitFor();
    for (const stage of ['discussing', 'reviewing', 'synthesizing', 'completed']) await discussion.getByText(`Stage: ${stage}`).waitFor();
    await discussion.getByText('BETA has read the others and still says 42.').waitFor();
    const votes = page.getByRole('table', { name: 'Votes' });
    assert.equal(await votes.getByText('approve').count(), 3);
    await votes.getByText('GAMMA finds 42 well argued.').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Abort' }).count(), 0, 'a completed launch cannot be aborted');
    await d.checkAccessibility('a completed council launch');
    await d.shot('council-completed');

    const [launch] = (await d.server.api('GET', '/api/council-launches')).body.launches;
    assert.equal(launch.stage, 'completed');
  });

  it('lists the launch as completed', async () => {
    await d.open('councils', 'Councils');
    await d.page.getByRole('table', { name: 'Council launches' }).getByText('completed').waitFor();
  });
});
