// The schedule form: a cron expression read back in words with its next five runs, the API's refusals
// shown beside the fields they name, a schedule created with a session action, then edited to an
// interval with owner approval; the stored record is what the form said.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startDashboard, type Dashboard } from './browser.js';

describe('the schedule form in the dashboard', () => {
  let d: Dashboard;
  let agentId: string;
  before(async () => {
    d = await startDashboard();
    agentId = (await d.server.api('POST', '/api/agents', { body: { name: 'Morning bot' } })).body.id;
  });
  after(() => d.close());

  it('previews a cron expression, shows the API refusals by their fields, and creates the schedule', async () => {
    const { page } = d;
    await d.open('schedules', 'Schedules');
    await page.getByRole('link', { name: 'New schedule' }).click();
    await page.getByRole('heading', { level: 1, name: 'New schedule' }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('Standup');
    await page.getByLabel('Time zone').fill('UTC');
    await page.getByLabel('Cron expression').fill('30 9 * * 1-5');
    await page.getByText('At 09:30, Monday through Friday (UTC)').waitFor();
    const next = page.getByRole('list', { name: 'Next runs' }).getByRole('listitem');
    await next.nth(4).waitFor();
    assert.equal(await next.count(), 5);
    for (const at of await page.getByRole('list', { name: 'Next runs' }).locator('time').evaluateAll((els) => els.map((e) => e.getAttribute('datetime')!))) {
      const date = new Date(at);
      assert.equal(`${date.getUTCHours()}:${date.getUTCMinutes()}`, '9:30', at);
      assert.ok(date.getUTCDay() >= 1 && date.getUTCDay() <= 5, `${at} is a weekday`);
    }
    // An expression croner cannot read: the preview says so at once.
    await page.getByLabel('Cron expression').fill('61 * * * *');
    await page.getByText(/Not a cron expression the server reads/).waitFor();

    // The API checks the body's shape first (the prompt is missing), then the timing (every minute is
    // under the server's minimum interval): each refusal beside its field.
    await page.getByLabel('Cron expression').fill('* * * * *');
    await page.getByLabel('Agent').selectOption({ label: 'Morning bot' });
    await page.getByRole('button', { name: 'Create schedule' }).click();
    const prompt = page.getByLabel('Prompt');
    await page.locator('.field', { has: prompt }).locator('.field-error', { hasText: 'body.action.prompt is required' }).waitFor();
    assert.equal(await prompt.getAttribute('aria-invalid'), 'true');
    await d.checkAccessibility('the schedule form with errors');
    await prompt.fill('Summarise what changed overnight.');
    await page.getByRole('button', { name: 'Create schedule' }).click();
    const cron = page.getByLabel('Cron expression');
    await page.locator('.field', { has: cron }).locator('.field-error', { hasText: 'the minimum interval is 300 s' }).waitFor();
    assert.equal(await prompt.getAttribute('aria-invalid'), null);
    await cron.fill('30 9 * * 1-5');
    await page.getByRole('button', { name: 'Create schedule' }).click();

    await page.getByRole('heading', { level: 1, name: 'Schedules' }).waitFor();
    await page.getByRole('table', { name: 'Schedules' }).getByRole('link', { name: 'Standup' }).waitFor();
    const list = (await d.server.api('GET', '/api/schedules')).body;
    const stored = list.schedules.find((s: any) => s.name === 'Standup');
    assert.equal(stored.cron, '30 9 * * 1-5');
    assert.equal(stored.timezone, 'UTC');
    assert.deepEqual(stored.action, { type: 'session', agentId, prompt: 'Summarise what changed overnight.' });
    await d.shot('schedule-created');
  });

  it('edits a schedule to an interval with owner approval', async () => {
    const { page } = d;
    await d.open('schedules', 'Schedules');
    await page.getByRole('table', { name: 'Schedules' }).getByRole('link', { name: 'Standup' }).click();
    await page.getByRole('heading', { level: 1, name: 'Edit schedule Standup' }).waitFor();
    assert.equal(await page.getByLabel('Prompt').inputValue(), 'Summarise what changed overnight.');
    await page.getByRole('radio', { name: 'Every so often' }).check();
    await page.getByLabel('Every', { exact: true }).fill('1');
    await page.getByLabel('Unit').selectOption({ label: 'minutes' });
    await page.getByRole('button', { name: 'Save schedule' }).click();
    await page.locator('.field', { has: page.getByLabel('Every', { exact: true }) }).locator('.field-error', { hasText: 'at least 300' }).waitFor();
    await page.getByLabel('Every', { exact: true }).fill('2');
    await page.getByLabel('Unit').selectOption({ label: 'hours' });
    await page.getByLabel('Approval', { exact: true }).selectOption({ label: 'The owner approves each run' });
    await d.checkAccessibility('the schedule edit form');
    await page.getByRole('button', { name: 'Save schedule' }).click();
    await page.getByRole('heading', { level: 1, name: 'Schedules' }).waitFor();
    await page.getByRole('table', { name: 'Schedules' }).getByText('every 7200 s').waitFor();
    const stored = (await d.server.api('GET', '/api/schedules')).body.schedules.find((s: any) => s.name === 'Standup');
    assert.equal(stored.cron, null);
    assert.equal(stored.intervalSeconds, 7200);
    assert.equal(stored.approval, 'owner_approve');
    assert.equal(stored.action.type, 'session');
  });
});
