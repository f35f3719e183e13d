// axe-core on every page of the dashboard: each section routes.tsx answers for (read from its source,
// so a new section is visited without editing this file), the detail and form pages under them with
// records behind them, and a route that is no page; every violation of any impact fails, listed.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import axe from 'axe-core';
import { startDashboard, type Dashboard } from './browser.js';
import { waitFor } from '../helpers/wait.js';

const ROUTES_SOURCE = readFileSync(join(process.cwd(), 'extensions', 'dashboard', 'web', 'routes.tsx'), 'utf8');
const SECTIONS = [...ROUTES_SOURCE.matchAll(/case '([a-z-]+)':/g)].map((m) => m[1]!);

describe('axe-core on every dashboard page', () => {
  let d: Dashboard;
  const routes: string[] = [];
  before(async () => {
    d = await startDashboard({ script: ['Hello from the fake.'] });
    const agent = (await d.server.api('POST', '/api/agents', { body: { name: 'Axe' } })).body;
    const session = (await d.server.api('POST', '/api/sessions', { body: { agentId: agent.id, initialPrompt: 'Say hello' } })).body;
    const workflow = (await d.server.api('POST', '/api/workflows', { body: { name: 'Axe flow', nodes: [{ id: 'start', type: 'start' }, { id: 'end', type: 'end' }], edges: [{ from: 'start', to: 'end' }] } })).body;
    const schedule = await d.server.api('POST', '/api/schedules', { body: { name: 'Axe schedule', cron: '0 9 * * *', action: { type: 'session', agentId: agent.id, prompt: 'hi' } } });
    assert.equal(schedule.status, 201, schedule.text);
    await waitFor('the session to answer', async () => ((await d.server.api('GET', `/api/sessions/${session.id}`)).body.turns > 0 ? true : undefined), 30_000);
    routes.push(
      ...SECTIONS,
      `sessions/${session.id}`, `chat/${agent.id}`, `agents/${agent.id}`,
      'schedules/new', `schedules/${schedule.body.id}`,
      `workflows/${workflow.id}`, 'workflows/new', `workflows/${workflow.id}/edit`,
      'marketplace/mine', 'marketplace/federated', 'marketplace/new',
      'no-such-page',
    );
  });
  after(() => d.close());

  it('finds no violation on any page', async () => {
    assert.ok(SECTIONS.length >= 15, `routes.tsx's sections: ${SECTIONS.join(', ')}`);
    const { page } = d;
    const found: string[] = [];
    for (const route of routes) {
      await page.goto(`/ui/#/${route}`);
      await page.getByRole('heading', { level: 1 }).first().waitFor();
      // Wait for what the page loads (its "Loading…" notes gone).
      await page.waitForFunction(() => document.querySelectorAll('[aria-busy="true"]').length === 0);
      if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axe.source);
      const result = await page.evaluate(() => (window as unknown as { axe: typeof axe }).axe.run(document, { resultTypes: ['violations'] }));
      for (const v of result.violations) found.push(`#/${route}: ${v.id} (${v.impact}): ${v.help} — ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join('; ')}`);
    }
    assert.deepEqual(found, [], `axe violations:\n${found.join('\n')}`);
  });
});
