// The rest of the dashboard with data behind it: the spending chart, sessions by agent, source and
// status; a workflow drawn with the state of each node; schedules and the approval queue; plugins with a
// capability revoked (and granted again) by a click; the audit log, filtered, with the chain verified;
// and the whole at a phone's width in the dark theme.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { waitFor } from '../helpers/wait.js';
import { ARTIFACTS, seriousViolations, startDashboard, UI_TIMEOUT, type Dashboard } from './browser.js';

describe('analytics, workflows, plugins and the audit log in the dashboard', () => {
  let d: Dashboard;
  before(async () => {
    d = await startDashboard({ script: [{ text: 'Counted.', usage: { input_tokens: 4000, output_tokens: 900 } }] });
    const agent = (await d.server.api('POST', '/api/agents', { body: { name: 'Counter' } })).body;
    const session = (await d.server.api('POST', '/api/sessions', { body: { agentId: agent.id, initialPrompt: 'count' } })).body;
    // The spending reaches analytics from the bus once the turn is charged.
    await waitFor('the spending to be counted', async () => {
      const s = (await d.server.api('GET', `/api/sessions/${session.id}`)).body;
      const spending = (await d.server.api('GET', '/api/analytics/spending?days=7')).body;
      return s.cost > 0 && spending.series.some((p: any) => p.total > 0) ? true : undefined;
    }, UI_TIMEOUT);
  });
  after(() => d.close());

  it('draws the spending per day and the sessions by agent, source and status', async () => {
    const { page } = d;
    await d.open('analytics', 'Analytics');
    const chart = page.locator('figure.chart', { hasText: 'Credits spent per day' });
    await chart.locator('canvas').waitFor();
    assert.equal(await chart.locator('.chart-box').getAttribute('data-points'), '30');
    const today = new Date().toISOString().slice(0, 10);
    const cell = chart.locator('tr', { hasText: `spent ${today}` }).locator('td');
    assert.ok(Number(await cell.textContent()) > 0, 'today has spending in the chart');
    await page.locator('figure.bars', { hasText: 'By agent' }).getByText('Counter').waitFor();
    await page.locator('figure.bars', { hasText: 'By source' }).getByText('web').waitFor();
    await page.getByText('Performance trends').waitFor();
    await d.checkAccessibility('the analytics page');
    await d.shot('analytics-spending');
  });

  it('draws a workflow with the state of each node of its latest run', async () => {
    const created = await d.server.api('POST', '/api/workflows', {
      body: { name: 'Hello flow', nodes: [{ id: 'start', type: 'start' }, { id: 'done', type: 'end', config: { output: { said: 'hi' } } }], edges: [{ from: 'start', to: 'done' }] },
    });
    assert.equal(created.status, 201, created.text);
    const { page } = d;
    await d.open('workflows', 'Workflows');
    await page.getByRole('link', { name: 'Hello flow' }).click();
    await page.getByRole('heading', { level: 1, name: 'Workflow Hello flow' }).waitFor();
    await page.getByRole('button', { name: 'Run now' }).click();
    const graph = page.locator('figure.graph svg');
    await graph.locator('g.node-completed', { hasText: 'done' }).waitFor();
    await graph.locator('g.node-completed', { hasText: 'start' }).waitFor();
    assert.equal(await graph.locator('path.edge').count(), 1);
    await page.getByRole('table', { name: 'Workflow runs' }).getByText('completed').waitFor();
    await d.checkAccessibility('a workflow page');
    await d.shot('workflow-graph');
    await d.open('workflows', 'Workflows');
    await page.getByRole('table', { name: 'Workflow runs' }).getByText('completed').waitFor();
    await d.checkAccessibility('the workflows page');
  });

  it('shows schedules, the approval queue and owner questions', async () => {
    await d.open('schedules', 'Schedules');
    await d.page.getByText('No schedules yet.').waitFor();
    await d.checkAccessibility('the schedules page');
    await d.open('escalations', 'Approvals & questions');
    await d.page.getByText('Nothing waits for approval.').waitFor();
    await d.checkAccessibility('the approvals page');
  });

  it('shows work tasks in the navigation only when the server answers for them', async () => {
    // The work tasks extension is optional: either way the page works.
    const served = (await d.server.api('GET', '/api/work-tasks')).status === 200;
    await d.open('work-tasks', 'Work tasks');
    if (served) {
      await d.page.getByRole('navigation').getByRole('link', { name: 'Work tasks' }).waitFor();
      await d.page.getByText('No work tasks yet.').waitFor();
    } else {
      await d.page.getByText('Work tasks are not available on this server.').waitFor();
      assert.equal(await d.page.getByRole('navigation').getByRole('link', { name: 'Work tasks' }).count(), 0);
    }
    await d.checkAccessibility('the work tasks page');
  });

  it('revokes a capability with a click, and grants it again', async () => {
    const { page } = d;
    await d.open('plugins', 'Plugins');
    const card = page.locator('section.card', { has: page.getByRole('heading', { name: 'analytics', exact: true }) });
    await card.getByText('call: granted').waitFor();
    await d.checkAccessibility('the plugins page');
    // What each extension requires, uses and is required by, and the graph they make.
    const sessions = page.locator('section.card', { has: page.getByRole('heading', { name: 'sessions', exact: true }) });
    await sessions.getByRole('definition').filter({ hasText: /^agents$/ }).waitFor();
    await page.getByRole('list', { name: 'Extension graph' }).getByRole('listitem').filter({ hasText: /^sessions · required by .*a2a/ }).waitFor();
    await card.getByRole('button', { name: 'Revoke call from analytics' }).click();
    await card.getByText('call: not granted').waitFor();
    await d.shot('plugin-capability-revoked');
    const analytics = (await d.server.api('GET', '/api/plugins')).body.plugins.find((p: any) => p.name === 'analytics');
    assert.ok(!analytics.capabilities.granted.includes('call'));
    await card.getByRole('button', { name: 'Grant call to analytics' }).click();
    await card.getByText('call: granted').waitFor();
  });

  it('filters the audit log and shows that its chain verifies', async () => {
    const { page } = d;
    await d.open('audit', 'Audit log');
    await page.getByText(/The chain verifies: \d+ entries checked/).waitFor();
    await page.getByLabel('Action starts with').fill('grant.capability');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    // Both entries are on the unfiltered first page too: wait for the filtered answer's count.
    await page.getByText('1–2 of 2').waitFor();
    const table = page.getByRole('table', { name: 'Audit entries' });
    await table.getByText('grant.capability_revoked').waitFor();
    await table.getByText('grant.capability_granted').waitFor();
    assert.equal(await table.locator('tbody tr').count(), 2);
    await d.checkAccessibility('the audit page');
    await d.shot('audit');
  });

  it('fits a phone and reads well in the dark theme', async () => {
    const phone = await d.browser.newContext({ baseURL: d.server.url, viewport: { width: 390, height: 844 }, colorScheme: 'dark', isMobile: true });
    try {
      const page = await phone.newPage();
      await page.goto('/ui/#/analytics');
      await page.getByRole('heading', { level: 1, name: 'Analytics' }).waitFor({ timeout: UI_TIMEOUT });
      // The analytics page draws more than one chart (spending, performance trends): any one will do.
      await page.locator('figure.chart canvas').first().waitFor({ timeout: UI_TIMEOUT });
      // A page wider than the phone would make the browser zoom out to fit it.
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(width <= 390, `the page is ${width}px wide on a 390px phone`);
      const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      assert.equal(background, 'rgb(17, 20, 24)');
      await page.screenshot({ path: join(ARTIFACTS, 'phone-dark-analytics.png'), fullPage: true });
      assert.deepEqual(await seriousViolations(page), [], 'accessibility on a phone in the dark theme');
      // The theme switch overrides the system's choice.
      await page.getByRole('button', { name: /^Theme: system/ }).click({ timeout: UI_TIMEOUT });
      await page.waitForFunction(() => getComputedStyle(document.body).backgroundColor === 'rgb(246, 247, 249)', undefined, { timeout: UI_TIMEOUT });
      await page.getByRole('button', { name: /^Theme: light/ }).waitFor({ timeout: UI_TIMEOUT });
    } finally {
      await phone.close();
    }
  });
});
