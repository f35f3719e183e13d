// The research tools from an agent's session, as its model calls them through the runner and /mcp; and
// a research summary session may not start another deep research (no recursion).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startHarness, type Harness } from '../sessions/harness.js';
import { SEARCH_KEY, startFakeSearch, type FakeSearch } from './support.js';

describe('research tools in sessions', () => {
  let h: Harness;
  let search: FakeSearch;
  before(async () => {
    search = await startFakeSearch(() => [{ title: 'Roost docs', url: 'https://roost.example/docs', description: 'All about roost' }]);
    h = await startHarness({ env: { ROOST_SEARCH_API_URL: search.url, ROOST_SEARCH_API_KEY: SEARCH_KEY } });
  });
  after(async () => {
    await h.close();
    await search.close();
  });

  /** The model calls `tool` once, then reports the result. */
  const callsOnce = (tool: string, input: Record<string, unknown>) => h.anthropic.setScript((req) => {
    const last = req.body.messages.at(-1);
    const result = Array.isArray(last.content) ? last.content.find((c: any) => c.type === 'tool_result') : undefined;
    return result ? 'Done.' : { toolUses: [{ name: tool, input }] };
  });

  const toolResult = async (sessionId: string, tool: string) => {
    await h.until(sessionId, (s) => s.turns >= 1 && !s.busy, 60_000);
    return (await h.events(sessionId)).find((e: any) => e.type === 'tool_result' && e.name === tool);
  };

  it('a session\'s model searches the web with svc_web_search', async () => {
    callsOnce('svc_web_search', { query: 'roost docs', count: 1 });
    const agent = await h.agent();
    const session = await h.session({ agentId: agent.id, initialPrompt: 'search' });
    const result = await toolResult(session.id, 'svc_web_search');
    assert.equal(result.isError, false, result.output);
    assert.deepEqual(JSON.parse(result.output).results, [{ title: 'Roost docs', url: 'https://roost.example/docs', description: 'All about roost' }]);
  });

  it('a research summary session cannot start another deep research', async () => {
    callsOnce('svc_deep_research', { question: 'again?' });
    const agent = await h.agent();
    const before = search.requests.length;
    const session = await h.session({ agentId: agent.id, name: 'Research summary: loops', initialPrompt: 'research' });
    const result = await toolResult(session.id, 'svc_deep_research');
    assert.equal(result.isError, true);
    assert.match(result.output, /a research summary session cannot start another deep research/);
    assert.equal(search.requests.length, before, 'nothing was searched');
  });
});
