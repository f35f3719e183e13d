// A session runs with its agent's skill bundles and its project's, in that order: their prompts in the
// system prompt, their tools narrowing the local tools (Read, LS → read_file, list_dir) and granting the
// privileged MCP tools they name (svc_delete_project), as docs/sessions.md "Skills" says.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startHarness, type Harness } from './harness.js';

describe('sessions: agent and project skills', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  const bundle = async (body: Record<string, unknown>) => {
    const res = await h.server.api('POST', '/api/skill-bundles', { body });
    assert.equal(res.status, 201, res.text);
    return res.body.id as string;
  };

  it('folds both bundles into the prompt, narrows the local tools and grants what the project\'s skill names', async () => {
    const reader = await bundle({ name: 'reader', description: 'Reads only', tools: ['Read', 'LS'], prompts: ['Never write files.'] });
    const tidy = await bundle({ name: 'tidy', description: 'Cleans up', tools: ['read_file', 'svc_delete_project'], prompts: ['Remove stale projects.'] });
    const project = await h.project();
    const victim = await h.project();
    assert.equal((await h.server.api('PUT', `/api/projects/${project.id}/skills`, { body: { bundleIds: [tidy, reader] } })).status, 200);
    const agent = await h.agent({ permissionMode: 'full-auto', systemPrompt: 'You keep things tidy.' });
    assert.equal((await h.server.api('PUT', `/api/agents/${agent.id}/skills`, { body: { bundleIds: [reader] } })).status, 200);

    h.anthropic.setScript([
      { toolUses: [{ name: 'run_command', input: { command: 'echo hi' } }, { name: 'svc_delete_project', input: { project_id: victim.id } }] },
      'Tidied.',
    ]);
    const session = await h.session({ agentId: agent.id, projectId: project.id, initialPrompt: 'Tidy up.' });
    await h.until(session.id, (s) => s.turns >= 2);

    const request = h.anthropic.requests.filter((r) => r.path === '/v1/messages').at(-1)!.body;
    // The agent's own prompt, then its bundle, then the project's bundle it lacks (reader only once).
    assert.equal(request.system, 'You keep things tidy.\n\nSkill "reader": Reads only\n- Never write files.\n\nSkill "tidy": Cleans up\n- Remove stale projects.');
    const offered = request.tools.map((t: any) => t.name);
    assert.deepEqual(offered.filter((name: string) => ['read_file', 'list_dir', 'write_file', 'edit_file', 'run_command'].includes(name)), ['read_file', 'list_dir']);
    const [refused, deleted] = request.messages.at(-1).content;
    assert.equal(refused.is_error, true);
    assert.match(refused.content, /run_command is not among this session's tools/);
    assert.notEqual(deleted.is_error, true, JSON.stringify(deleted));
    assert.equal((await h.server.api('GET', `/api/projects/${victim.id}`)).status, 404, 'the project skill granted svc_delete_project');
  });

  it('a session without a project keeps every local tool and only its agent\'s grants', async () => {
    const agent = await h.agent({ permissionMode: 'full-auto' });
    const victim = await h.project();
    h.anthropic.setScript([{ toolUses: [{ name: 'svc_delete_project', input: { project_id: victim.id } }] }, 'Could not.']);
    const session = await h.session({ agentId: agent.id, initialPrompt: 'Delete it.' });
    await h.until(session.id, (s) => s.turns >= 2);
    const request = h.anthropic.requests.filter((r) => r.path === '/v1/messages').at(-1)!.body;
    for (const name of ['read_file', 'list_dir', 'write_file', 'edit_file', 'run_command']) assert.ok(request.tools.some((t: any) => t.name === name), name);
    assert.match(JSON.stringify(request.messages.at(-1).content), /mcp_tool_permissions/);
    assert.equal((await h.server.api('GET', `/api/projects/${victim.id}`)).status, 200);
  });
});
