// Slack's request signing: X-Slack-Signature = "v0=" + hex HMAC-SHA256(signing secret, "v0:{ts}:{body}"),
// with X-Slack-Request-Timestamp no further than five minutes from now (older is a replay).
import { createHmac, timingSafeEqual } from 'node:crypto';

export const WINDOW_SECONDS = 300;

export type Verdict = 'valid' | 'invalid' | 'stale';

export function verifySlackSignature(secret: string, headers: Record<string, string>, body: string, nowSeconds = Math.floor(Date.now() / 1000)): Verdict {
  const timestamp = headers['x-slack-request-timestamp'] ?? '';
  const signature = headers['x-slack-signature'] ?? '';
  if (!/^\d{1,12}$/.test(timestamp) || !signature.startsWith('v0=')) return 'invalid';
  if (Math.abs(nowSeconds - Number(timestamp)) > WINDOW_SECONDS) return 'stale';
  const expected = Buffer.from(`v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex')}`);
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected) ? 'valid' : 'invalid';
}
