// POST /webhooks/vcshost: signatures (valid, invalid, replayed, wrong body) and a mention from an
// allowlisted user starting a session.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { sign } from '@octokit/webhooks-methods';
import { waitFor } from '../helpers/wait.js';
import { startHarness, writes, type Harness } from './harness.js';

const SECRET = 'webhook-secret-for-tests';

describe('inbound code-host webhooks', () => {
  let h: Harness;
  let agent: any;
  before(async () => {
    h = await startHarness({ ROOST_EXT_CODEHOST_WEBHOOK_SECRET: SECRET });
    agent = await h.agent({ name: 'reviewer-bot' });
    await h.server.api('POST', '/api/vcshost-allowlist', { body: { username: 'alice' } });
  });
  after(() => h.close());

  const comment = (login: string, body: string, repo = 'acme/widgets') => JSON.stringify({
    action: 'created', repository: { full_name: repo }, issue: { number: 7 }, sender: { login },
    comment: { id: 1, body, user: { login }, html_url: `https://codehost.test/${repo}/issues/7#issuecomment-1` },
  });

  /**
   * Waits until the model has been asked once more than `since` times: a session a delivery started takes
   * its reply from the fake's script, and must have taken it before a later test sets another.
   */
  const modelAsked = (since: number) => waitFor('the session to ask the model', async () => (h.anthropic.requests.length > since ? true : undefined), 45_000);

  async function deliver(payload: string, options: { signature?: string; delivery?: string; event?: string; contentType?: string } = {}) {
    return h.server.api('POST', '/webhooks/vcshost', {
      raw: payload,
      headers: {
        'content-type': options.contentType ?? 'application/json',
        'x-hub-signature-256': options.signature ?? (await sign(SECRET, payload)),
        'x-github-delivery': options.delivery ?? randomUUID(),
        'x-github-event': options.event ?? 'issue_comment',
      },
    });
  }

  it('starts a session when an allowlisted user mentions an agent, once per delivery', async () => {
    h.anthropic.setScript(['On it.']);
    const asked = h.anthropic.requests.length;
    const payload = comment('alice', '@reviewer-bot please look at this');
    const delivery = randomUUID();
    const res = await deliver(payload, { delivery });
    assert.equal(res.status, 202, res.text);
    assert.equal(res.body.action, 'session_started');
    assert.equal(res.body.agentId, agent.id);
    const session = await waitFor('the session', async () => {
      const s = await h.server.api('GET', `/api/sessions/${res.body.sessionId}`);
      return s.status === 200 ? s.body : undefined;
    });
    assert.equal(session.agentId, agent.id);
    await modelAsked(asked);
    const replay = await deliver(payload, { delivery });
    assert.equal(replay.status, 409);
    assert.match(replay.body.error, /replay/);
  });

  it('refuses a wrong signature, a body that is not the signed one, and missing headers', async () => {
    const payload = comment('alice', '@reviewer-bot hi');
    assert.equal((await deliver(payload, { signature: await sign('another-secret', payload) })).status, 401);
    assert.equal((await deliver(payload, { signature: 'sha256=zz' })).status, 401);
    assert.equal((await deliver(payload, { signature: '' })).status, 401);
    assert.equal((await deliver(payload.replace('hi', 'ho'), { signature: await sign(SECRET, payload) })).status, 401);
    assert.equal((await deliver(payload, { delivery: '' })).status, 400);
    assert.equal((await deliver('{not json')).status, 400);
  });

  it('takes GitHub\'s default form-encoded delivery, the signature checked over the raw form body', async () => {
    h.anthropic.setScript(['Form read.']);
    const asked = h.anthropic.requests.length;
    const form = new URLSearchParams({ payload: comment('alice', '@reviewer-bot from a form-encoded hook') }).toString();
    const formType = 'application/x-www-form-urlencoded';
    const res = await deliver(form, { contentType: formType });
    assert.equal(res.status, 202, res.text);
    assert.equal(res.body.action, 'session_started');
    await modelAsked(asked);
    // Signed over the JSON inside rather than the form sent: refused.
    const inner = comment('alice', '@reviewer-bot again');
    assert.equal((await deliver(new URLSearchParams({ payload: inner }).toString(), { contentType: formType, signature: await sign(SECRET, inner) })).status, 401);
    const noPayload = await deliver('other=1', { contentType: formType });
    assert.deepEqual([noPayload.status, noPayload.body.code], [400, 'VALIDATION_ERROR']);
    const notJson = await deliver(new URLSearchParams({ payload: '{not json' }).toString(), { contentType: `${formType}; charset=utf-8` });
    assert.deepEqual([notJson.status, notJson.body.code], [400, 'BAD_JSON']);
    const ping = await deliver(new URLSearchParams({ payload: JSON.stringify({ zen: 'Keep it logically awesome.' }) }).toString(), { contentType: formType, event: 'ping' });
    assert.deepEqual([ping.status, ping.body.action], [200, 'pong']);
  });

  it('records a merged pull request on the work task that opened it', async () => {
    const { projectId } = await h.repo();
    h.anthropic.setScript(writes('42'));
    const task = (await h.server.api('POST', '/api/work-tasks', { body: { agentId: agent.id, description: 'Merge me', projectId } })).body;
    const done = await h.until(task.id, (t) => t.status === 'completed', 'the task to complete');
    const payload = JSON.stringify({ action: 'closed', repository: { full_name: 'acme/widgets' }, pull_request: { number: done.pr.number, merged: true } });
    const res = await deliver(payload, { event: 'pull_request' });
    assert.deepEqual([res.status, res.body.action, res.body.state], [200, 'pull_request_announced', 'merged']);
    // The state is written, then the step: wait for both.
    const merged = await h.until(task.id, (t) => t.pr?.state === 'merged' && t.steps.some((s: any) => s.message === 'pull request merged'), 'the task to record the merge');
    assert.equal(merged.pr.state, 'merged');
  });

  it('ignores what starts nothing: unknown users, blocked repositories, no mention, other events', async () => {
    assert.match((await deliver(comment('mallory', '@reviewer-bot do it'))).body.reason, /not on the code-host allowlist/);
    await h.server.api('POST', '/api/repo-blocklist', { body: { repo: 'acme/secret' } });
    assert.match((await deliver(comment('alice', '@reviewer-bot do it', 'acme/secret'))).body.reason, /blocked/);
    assert.match((await deliver(comment('alice', 'no mention here'))).body.reason, /no agent of this tenant/);
    assert.equal((await deliver(JSON.stringify({ zen: 'hi' }), { event: 'ping' })).body.action, 'pong');
    assert.equal((await deliver(JSON.stringify({ action: 'opened' }), { event: 'issues' })).body.action, 'ignored');
  });
});
