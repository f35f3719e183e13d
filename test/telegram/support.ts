// The Telegram suites' server: fake Anthropic (for the agent's replies), fake Telegram Bot API, and the
// notifications test knobs; helpers to configure the bridge and to find what the bot sent.
import assert from 'node:assert/strict';
import { startFakeAnthropic, type FakeAnthropic } from '../fakes/anthropic.js';
import { startFakeTelegram, type FakeTelegram, type SentMessage } from '../fakes/telegram.js';
import type { TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
import { NOTIFY_ENV } from '../notifications/support.js';

export interface Fakes {
  anthropic: FakeAnthropic;
  telegram: FakeTelegram;
  env: Record<string, string>;
  close(): Promise<void>;
}

export async function startFakes(reply = 'Hello from your agent.'): Promise<Fakes> {
  const anthropic = await startFakeAnthropic({ apiKey: 'test', script: [reply] });
  const telegram = await startFakeTelegram();
  return {
    anthropic,
    telegram,
    // The fake Telegram is on loopback: every tenant's bot may reach it; quick outbox retries, and a short
    // pace between sends to one chat (still in order, still paced; Telegram's one a second would make
    // each command a test sends wait a second for its answer).
    env: { ...NOTIFY_ENV, ANTHROPIC_API_KEY: 'test', ANTHROPIC_BASE_URL: anthropic.url, ROOST_EXT_TELEGRAM_ALLOW_PRIVATE_URLS: '1', ROOST_EXT_TELEGRAM_ALLOW_LOOPBACK: '1', ROOST_EXT_TELEGRAM_RETRY_BASE_MS: '200', ROOST_EXT_TELEGRAM_PACE_MS: '50' },
    async close() {
      await telegram.close();
      await anthropic.close();
    },
  };
}

export async function configureBot(server: TestServer, key: string | undefined, body: Record<string, unknown>): Promise<any> {
  const res = await server.api('PUT', '/api/bridges/telegram', { key, body });
  assert.equal(res.status, 200, res.text);
  return res.body;
}

/** The first message the bot sent to `chatId` after `from` (an index in telegram.sent) that matches. */
export function sentTo(telegram: FakeTelegram, chatId: number, match: (m: SentMessage) => boolean, from = 0, timeoutMs = 20_000): Promise<SentMessage> {
  return waitFor(`a message to chat ${chatId}`, async () => telegram.sent.slice(from).find((m) => String(m.chat_id) === String(chatId) && match(m)), timeoutMs);
}
