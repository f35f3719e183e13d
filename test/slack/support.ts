// A real server with the fake Anthropic API and the fake Slack Web API, the fx-caller fixture (to reach
// the bridge's internal routes as a tenant would through the kernel), and helpers that play Slack.
import assert from 'node:assert/strict';
import { FIXTURES } from '../agents/support.js';
import { startFakeSlack, slackHeaders, type FakeSlack } from '../fakes/slack.js';
import { startHarness, type Harness } from '../sessions/harness.js';

export const TEAM = 'T0ROOST';
export const BOT_TOKEN = 'xoxb-1-roost-test';
export const SIGNING_SECRET = 'slack-signing-secret-for-tests';

export interface SlackHarness extends Harness {
  slack: FakeSlack;
  /** Delivers a signed event callback (or any payload) to /workchat/events. */
  deliver(payload: Record<string, unknown> | string, options?: { secret?: string; timestamp?: number; headers?: Record<string, string> }): Promise<{ status: number; body: any }>;
  /** Presses a button: a signed block_actions interaction. */
  press(message: { channel: string; ts: string }, action: { action_id: string; value: string }, user?: string): Promise<{ status: number; body: any }>;
  configure(body: Record<string, unknown>, key?: string): Promise<{ status: number; body: any; text: string }>;
}

let events = 0;

export async function startSlackHarness(env: Record<string, string> = {}): Promise<SlackHarness> {
  const slack = await startFakeSlack();
  slack.addToken(BOT_TOKEN, TEAM);
  const h = await startHarness({
    env: { ROOST_EXTENSION_DIRS: FIXTURES, ROOST_EXT_SLACK_API_URL: slack.apiUrl, ROOST_EXT_SLACK_RETRY_BASE_MS: '200', ROOST_EXT_NOTIFICATIONS_RETRY_BASE_MS: '200', ROOST_EXT_NOTIFICATIONS_MIN_TIMEOUT_SECONDS: '1', ...env },
  });
  const close = h.close;
  return Object.assign(h, {
    slack,
    async deliver(payload: Record<string, unknown> | string, options: { secret?: string; timestamp?: number; headers?: Record<string, string> } = {}) {
      const raw = typeof payload === 'string' ? payload : JSON.stringify(payload);
      const headers = { ...slackHeaders(options.secret ?? SIGNING_SECRET, raw, options.timestamp), ...options.headers };
      return h.server.api('POST', '/workchat/events', { raw, headers });
    },
    async press(message: { channel: string; ts: string }, action: { action_id: string; value: string }, user = 'owner-in-slack') {
      const payload = { type: 'block_actions', team: { id: TEAM }, user: { id: 'U1', username: user }, channel: { id: message.channel }, message: { ts: message.ts }, actions: [action] };
      const raw = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
      return h.server.api('POST', '/workchat/interactions', { raw, headers: { 'content-type': 'application/x-www-form-urlencoded', ...slackHeaders(SIGNING_SECRET, raw) } });
    },
    configure: (body: Record<string, unknown>, key?: string) => h.server.api('PUT', '/api/bridges/slack', { body, key }),
    async close() {
      await close();
      await slack.close();
    },
  });
}

/** An event callback as Slack sends it. */
export function mention(channel: string, text: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const ts = `${1_800_000_000 + ++events}.000200`;
  return { type: 'event_callback', team_id: TEAM, event_id: `Ev${Date.now()}${events}`, event: { type: 'app_mention', channel, user: 'UHUMAN', text: `<@UROOSTBOT> ${text}`, ts, ...extra } };
}

export function assertNoSecrets(text: string): void {
  assert.ok(!text.includes(BOT_TOKEN), 'the bot token is never returned');
  assert.ok(!text.includes(SIGNING_SECRET), 'the signing secret is never returned');
}
