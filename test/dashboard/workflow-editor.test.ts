// The workflow editor: a node added from the palette, connected by dragging from a handle onto it,
// moved with the pointer and the keyboard, refused by the API with the problems listed and the nodes
// they name marked, fixed (an edge deleted by the keyboard, one added from the panel), saved; then run,
// its nodes' states shown live; and edited again, the positions kept.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startDashboard, type Dashboard } from './browser.js';

describe('the workflow editor in the dashboard', () => {
  let d: Dashboard;
  let workflowId: string;
  before(async () => {
    d = await startDashboard();
  });
  after(() => d.close());

  const center = async (selector: string) => {
    const box = (await d.page.locator(selector).boundingBox())!;
    return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
  };

  it('draws a workflow, shows what the API refuses, and saves it once fixed', async () => {
    const { page } = d;
    await d.open('workflows', 'Workflows');
    await page.getByRole('link', { name: 'New workflow' }).click();
    await page.getByRole('heading', { level: 1, name: 'New workflow' }).waitFor();
    await page.getByLabel('Workflow name').fill('Triage');
    await page.getByLabel('Node type').selectOption({ label: 'Condition' });
    await page.getByRole('button', { name: 'Add node' }).click();
    const condition = page.getByRole('button', { name: /^condition_1 Condition/ });
    await condition.waitFor();
    await page.getByRole('heading', { name: 'Node condition_1' }).waitFor();

    // Drag the new node right, then wire start's handle onto it.
    const before = await center('g[data-node="condition_1"] rect');
    await page.mouse.move(before.x, before.y);
    await page.mouse.down();
    await page.mouse.move(before.x + 120, before.y + 30, { steps: 5 });
    await page.mouse.up();
    const moved = await center('g[data-node="condition_1"] rect');
    assert.ok(Math.abs(moved.x - before.x - 120) < 2 && Math.abs(moved.y - before.y - 30) < 2, `moved from ${JSON.stringify(before)} to ${JSON.stringify(moved)}`);
    const handle = await center('circle[data-handle="start"]');
    await page.mouse.move(handle.x, handle.y);
    await page.mouse.down();
    await page.mouse.move(moved.x, moved.y, { steps: 8 });
    await page.mouse.up();
    await page.getByRole('button', { name: 'Edge start to condition_1' }).waitFor();

    // Start now forks without a parallel node, and the condition has no expression: the API says both.
    await page.getByRole('button', { name: 'Create workflow' }).click();
    const problems = page.getByRole('list', { name: 'Problems', exact: true });
    await problems.getByText(`node "condition_1" (condition): config must have required property 'expression'`).waitFor();
    await problems.getByText(/node "start" \(start\) has several edges/).waitFor();
    await page.getByRole('button', { name: 'condition_1 Condition, has problems' }).waitFor();
    await d.checkAccessibility('the workflow editor with problems');
    await d.shot('workflow-editor-problems');

    // From the keyboard: delete the start → end edge, nudge the node, fill its expression, connect it.
    await page.getByRole('button', { name: 'Edge start to end' }).focus();
    await page.keyboard.press('Delete');
    await page.getByRole('button', { name: 'Edge start to end' }).waitFor({ state: 'detached' });
    await condition.focus();
    await page.keyboard.press('Enter');
    await page.keyboard.press('ArrowDown');
    await page.getByLabel('Expression').fill('true');
    await page.getByLabel('Next node').selectOption('end');
    await page.getByLabel('Branch').selectOption('true');
    await page.getByRole('button', { name: 'Add edge' }).click();
    await page.getByRole('button', { name: 'Edge condition_1 to end, branch true' }).waitFor();
    await page.getByRole('button', { name: 'Create workflow' }).click();
    await page.getByRole('heading', { level: 1, name: 'Workflow Triage' }).waitFor();

    const list = (await d.server.api('GET', '/api/workflows')).body;
    const stored = list.workflows.find((w: any) => w.name === 'Triage');
    workflowId = stored.id;
    const node = stored.nodes.find((n: any) => n.id === 'condition_1');
    assert.deepEqual(node.config, { expression: 'true' });
    assert.ok(node.position.x > 0 && node.position.y > 0, JSON.stringify(node.position));
    assert.deepEqual(stored.edges.map((e: any) => `${e.from}>${e.to}:${e.branch ?? ''}`).sort(), ['condition_1>end:true', 'start>condition_1:']);
  });

  it('runs the workflow and shows each node finish', async () => {
    const { page } = d;
    await page.getByRole('button', { name: 'Run now' }).click();
    const graph = page.locator('figure.graph svg');
    for (const id of ['start', 'condition_1', 'end']) await graph.locator('g.node-completed', { hasText: id }).waitFor();
    await page.getByRole('table', { name: 'Workflow runs' }).getByText('completed').waitFor();
    await d.checkAccessibility('a workflow run');
  });

  it('opens the saved workflow in the editor where it was left', async () => {
    const { page } = d;
    await page.getByRole('link', { name: 'Edit' }).click();
    await page.getByRole('heading', { level: 1, name: 'Edit workflow Triage' }).waitFor();
    const stored = (await d.server.api('GET', `/api/workflows/${workflowId}`)).body;
    const saved = stored.nodes.find((n: any) => n.id === 'condition_1').position;
    const transform = await page.locator('g[data-node="condition_1"]').getAttribute('transform');
    assert.equal(transform, `translate(${saved.x} ${saved.y})`);
    await page.getByLabel('Workflow name').fill('Triage v2');
    await page.getByRole('button', { name: 'Save workflow' }).click();
    await page.getByRole('heading', { level: 1, name: 'Workflow Triage v2' }).waitFor();
    assert.equal((await d.server.api('GET', `/api/workflows/${workflowId}`)).body.version, stored.version + 1);
  });
});
