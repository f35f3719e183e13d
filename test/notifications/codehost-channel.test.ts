// The code host as a notification channel, against the fake code host driven by the real Octokit client:
// a notification opens an issue or comments on one, a retried delivery is not posted twice, a blocked
// repository is refused, and an owner question is answered by an allowlisted user's "/answer" comment
// arriving through the signed code-host webhook.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { sign } from '@octokit/webhooks-methods';
import { callAs, callTool, mcpClient } from '../agents/support.js';
import { waitFor } from '../helpers/wait.js';
import { startHarness, type Harness } from '../work-tasks/harness.js';

const SECRET = 'codehost-channel-webhook-secret';

describe('the code host as a notification channel', () => {
  let h: Harness;
  let mcp: Client;
  before(async () => {
    h = await startHarness({ ROOST_EXT_CODEHOST_WEBHOOK_SECRET: SECRET, ROOST_EXT_NOTIFICATIONS_RETRY_BASE_MS: '200', ROOST_EXT_NOTIFICATIONS_MIN_TIMEOUT_SECONDS: '1' });
    mcp = await mcpClient(h.server);
  });
  after(async () => {
    await mcp?.close();
    await h.close();
  });

  const deliver = (body: unknown) => callAs(h.server, undefined, 'POST', '/api/internal/bridges/codehost/deliver', body);

  it('opens an issue, or comments on the one named; a retried delivery (same key) posts nothing again', async () => {
    const opened = await deliver({ kind: 'notification', channel: { type: 'codehost', repo: 'acme/widgets' }, text: 'Nightly build failed\nsee the logs', priority: 'urgent', key: 'd-1' });
    assert.equal(opened.status, 200, JSON.stringify(opened.body));
    const issue = h.codehost.social.issues.find((i) => i.title === 'Nightly build failed')!;
    assert.equal(issue.body, '[URGENT] Nightly build failed\nsee the logs');
    assert.equal(opened.body.externalId, `acme/widgets#${issue.number}`);
    const again = await deliver({ kind: 'notification', channel: { type: 'codehost', repo: 'acme/widgets' }, text: 'Nightly build failed\nsee the logs', key: 'd-1' });
    assert.equal(again.body.externalId, opened.body.externalId);
    assert.equal(h.codehost.social.issues.filter((i) => i.title === 'Nightly build failed').length, 1, 'posted once');

    const commented = await deliver({ kind: 'notification', channel: { type: 'codehost', repo: 'acme/widgets', issue: issue.number }, text: 'Fixed now' });
    assert.equal(commented.status, 200);
    const comment = h.codehost.social.comments.find((c) => c.body === 'Fixed now')!;
    assert.equal(commented.body.externalId, `acme/widgets#${issue.number}/${comment.id}`);

    for (const [body, status] of [
      [{ kind: 'notification', channel: { type: 'codehost' }, text: 'no repo' }, 400],
      [{ kind: 'notification', channel: { type: 'codehost', repo: 'acme/*' }, text: 'all of them' }, 400],
      [{ kind: 'notification', channel: { type: 'codehost', repo: 'acme/widgets', issue: 'seven' }, text: 'x' }, 400],
      [{ kind: 'notification', channel: { type: 'codehost', repo: 'acme/nothing-here' }, text: 'x' }, 404],
    ] as const) {
      const res = await deliver(body);
      assert.equal(res.status, status, JSON.stringify(res.body));
    }
  });

  it('refuses a repository on the tenant\'s blocklist', async () => {
    assert.equal((await h.server.api('POST', '/api/repo-blocklist', { body: { repo: 'acme/secret', reason: 'private' } })).status, 201);
    const before = h.codehost.requests.length;
    const refused = await deliver({ kind: 'notification', channel: { type: 'codehost', repo: 'acme/secret' }, text: 'leak' });
    assert.equal(refused.status, 403);
    assert.match(refused.body.error, /blocklist/);
    assert.equal(h.codehost.requests.length, before, 'nothing reached the code host');
  });

  it('an owner question is answered by an allowlisted user\'s /answer comment, and closed with a comment', async () => {
    const issue = h.codehost.social.issues[0]!;
    assert.equal((await h.server.api('POST', '/api/notification-channels', { body: { type: 'codehost', config: { repo: 'acme/widgets', issue: issue.number } } })).status, 201);
    assert.equal((await h.server.api('POST', '/api/vcshost-allowlist', { body: { username: 'owner-on-host' } })).status, 201);
    const asking = callTool(mcp, 'svc_ask_owner', { question: 'Cut the release?', options: ['cut', 'wait'], timeout: 2 });
    const shown = await waitFor('the question comment', async () => h.codehost.social.comments.find((c) => /Cut the release\?/.test(c.body)), 20_000);
    assert.match(shown.body, /Options: `cut`, `wait`/);
    assert.match(shown.body, /\/answer <your answer>/);

    const comment = async (login: string, body: string) => {
      const payload = JSON.stringify({ action: 'created', repository: { full_name: 'acme/widgets' }, issue: { number: issue.number }, sender: { login }, comment: { id: 1, body, user: { login }, html_url: 'https://codehost.test/x' } });
      return h.server.api('POST', '/webhooks/vcshost', { raw: payload, headers: { 'x-hub-signature-256': await sign(SECRET, payload), 'x-github-delivery': randomUUID(), 'x-github-event': 'issue_comment' } });
    };
    const stranger = await comment('stranger', '/answer cut');
    assert.equal(stranger.body.action, 'ignored', 'not on the allowlist');
    const answered = await comment('owner-on-host', '/answer WAIT');
    assert.equal(answered.status, 200, answered.text);
    assert.equal(answered.body.action, 'question_answered');
    const result = await asking;
    assert.equal(result.value.answer, 'wait');
    assert.equal(result.value.channel, 'codehost');
    assert.equal(result.value.responder, 'owner-on-host');
    const closed = await waitFor('the closing comment', async () => h.codehost.social.comments.find((c) => /^Closed: Answered: "wait" \(via codehost, by owner-on-host\)/.test(c.body)), 20_000);
    assert.equal(closed.issue, issue.number);
    const late = await comment('owner-on-host', '/answer cut');
    assert.equal(late.body.action, 'ignored', 'a closed question is not answered again');
  });
});
