// Posting to a Slack-compatible incoming webhook: one JSON body {"text": …}. The URL is itself a secret
// (whoever has it can post), so only its origin is ever shown.
import { RoostError } from '../../protocol/errors.js';

const TIMEOUT_MS = 15_000;

export function checkWebhook(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new RoostError('USAGE', `"${url}" is not a URL (expected https://hooks.slack.com/services/… or another webhook URL)`);
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw new RoostError('USAGE', `the webhook must be an http(s) URL, not ${parsed.protocol}`);
  return parsed;
}

export async function postMessage(url: URL, text: string): Promise<void> {
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'roost-notify (cli-plugin-notify)' },
      body: JSON.stringify({ text }),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (err) {
    throw new RoostError('UPSTREAM_ERROR', `the webhook at ${url.origin} cannot be reached: ${(err as Error).cause ? String((err as { cause: unknown }).cause) : (err as Error).message}`);
  }
  if (!res.ok) {
    const body = (await res.text()).slice(0, 200).trim();
    throw new RoostError('UPSTREAM_ERROR', `the webhook at ${url.origin} answered ${res.status}${body ? `: ${body}` : ''}`);
  }
}
