// The local owner is signed in without a key; agents and projects are made and changed through the
// pages (the project's folder picked in the directory browser), and the server has what was entered.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startDashboard, type Dashboard } from './browser.js';

describe('agents and projects in the dashboard', () => {
  let d: Dashboard;
  let folder: string;
  before(async () => {
    folder = await mkdtemp(join(tmpdir(), 'roost-ui-project-'));
    await mkdir(join(folder, 'src'));
    d = await startDashboard();
  });
  after(async () => {
    await d.close();
    await rm(folder, { recursive: true, force: true });
  });

  it('signs the local owner in without a key', async () => {
    await d.open('sessions', 'Sessions');
    await d.page.getByText('default · owner (local)').waitFor();
    assert.equal(await d.page.getByRole('button', { name: 'Sign out' }).count(), 0, 'a keyless owner has nothing to sign out of');
    await d.checkAccessibility('the sessions page');
  });

  it('creates an agent, then edits its settings, persona, skills and spending cap', async () => {
    const { page } = d;
    await d.open('agents', 'Agents');
    await page.getByLabel('Name', { exact: true }).fill('Ada');
    await page.getByLabel('Permission mode').selectOption('acceptEdits');
    await page.getByRole('button', { name: 'Create agent' }).click();
    await page.getByRole('link', { name: 'Ada' }).waitFor();
    await d.checkAccessibility('the agents page');
    await d.shot('agents');
    const [agent] = (await d.server.api('GET', '/api/agents')).body.agents;
    assert.equal(agent.name, 'Ada');
    assert.equal(agent.permissionMode, 'acceptEdits');

    await page.getByRole('link', { name: 'Ada' }).click();
    await page.getByRole('heading', { level: 1, name: 'Agent Ada' }).waitFor();
    await page.getByLabel('System prompt').fill('Be brief.');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    await page.getByLabel('Archetype').selectOption('reviewer');
    await page.getByLabel('Traits').fill('skeptical, concise');
    await page.getByRole('button', { name: 'Save persona' }).click();
    await page.getByRole('button', { name: 'Remove persona' }).waitFor();
    await page.getByRole('button', { name: 'Clone researcher' }).click();
    await page.getByRole('checkbox', { name: /researcher/ }).check();
    await page.getByRole('button', { name: 'Save skills' }).click();
    await page.getByLabel('Daily spending cap').fill('2.5');
    await page.getByRole('button', { name: 'Set cap' }).click();
    await page.getByText(/Daily cap: 2\.5 /).waitFor();
    await d.checkAccessibility('an agent page');
    await d.shot('agent-detail');

    const saved = (await d.server.api('GET', `/api/agents/${agent.id}`)).body;
    assert.equal(saved.systemPrompt, 'Be brief.');
    assert.deepEqual((await d.server.api('GET', `/api/agents/${agent.id}/persona`)).body.traits, ['skeptical', 'concise']);
    const skills = (await d.server.api('GET', `/api/agents/${agent.id}/skills`)).body;
    assert.equal(skills.bundleIds.length, 1);
    assert.equal((await d.server.api('GET', `/api/agents/${agent.id}/spending`)).body.cap.dailyLimit, 2_500_000);
  });

  it('shows the error the server gives for a duplicate name, and keeps what was typed', async () => {
    const { page } = d;
    await d.open('agents', 'Agents');
    await page.getByLabel('Name', { exact: true }).fill('Ada');
    await page.getByRole('button', { name: 'Create agent' }).click();
    await page.getByRole('alert').waitFor();
    assert.equal(await page.getByLabel('Name', { exact: true }).inputValue(), 'Ada');
    assert.equal((await d.server.api('GET', '/api/agents')).body.agents.length, 1);
  });

  it('creates a project whose folder is picked in the directory browser', async () => {
    const { page } = d;
    await d.open('projects', 'Projects');
    await page.getByLabel('Name', { exact: true }).fill('Website');
    const browser = page.getByRole('group', { name: 'Directory browser' });
    await browser.getByRole('button', { name: `${tmpdir()}/` }).click();
    await browser.getByRole('button', { name: `${basename(folder)}/` }).click();
    await browser.getByRole('button', { name: 'src/' }).waitFor();
    await browser.getByRole('button', { name: 'Use this folder' }).click();
    assert.equal(await page.getByLabel('Working folder').inputValue(), folder);
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.getByRole('cell', { name: 'Website', exact: true }).waitFor();
    await d.checkAccessibility('the projects page');
    await d.shot('projects');
    const [project] = (await d.server.api('GET', '/api/projects')).body.projects;
    assert.equal(project.name, 'Website');
    assert.equal(project.workingDir, folder);
  });

  it('refuses a folder outside the allowed roots with the server\'s reason', async () => {
    const { page } = d;
    await page.getByLabel('Name', { exact: true }).fill('Outside');
    await page.getByLabel('Working folder').fill('/etc');
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.getByRole('alert').filter({ hasText: /allowed roots|outside/i }).waitFor();
    assert.equal((await d.server.api('GET', '/api/projects')).body.projects.length, 1);
  });
});
