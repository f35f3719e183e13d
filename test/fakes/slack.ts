// A fake Slack Web API on loopback for the real @slack/web-api client (slackApiUrl pointed here):
// auth.test, chat.postMessage and chat.update with Slack's `{ok, error}` envelope, bot tokens checked,
// every call recorded, outages on demand (503s); and the signing helper a test uses to play Slack delivering events.
import { createHmac } from 'node:crypto';
import { sendJson, startFakeServer, type FakeServer } from './provider-http.js';

export interface SlackCall {
  method: string;
  token: string;
  args: Record<string, any>;
  /** The ts chat.postMessage gave the message. */
  ts?: string;
  /** Answered 503 (an outage). */
  failed?: boolean;
  /** When it arrived (ms since the epoch). */
  at: number;
}

export interface FakeSlack extends FakeServer {
  /** The slackApiUrl to configure: `${url}/api/`. */
  apiUrl: string;
  calls: SlackCall[];
  posts(channel?: string): SlackCall[];
  /** Accept this bot token as one of workspace `teamId`. */
  addToken(token: string, teamId: string, botUserId?: string): void;
  /** The next `n` calls answer 503, as Slack does in an outage. */
  failNext(n: number): void;
}

export async function startFakeSlack(): Promise<FakeSlack> {
  const tokens = new Map<string, { teamId: string; botUserId: string }>();
  const calls: SlackCall[] = [];
  let ts = 1_700_000_000;
  let failures = 0;
  const server = await startFakeServer(async (request, res) => {
    const method = request.path.replace(/^\/api\//, '');
    const token = String(request.headers.authorization ?? '').replace(/^Bearer /, '');
    const args = parseArgs(request.body);
    const owner = tokens.get(token);
    if (!owner) return sendJson(res, 200, { ok: false, error: 'invalid_auth' });
    const call: SlackCall = { method, token, args, at: Date.now() };
    calls.push(call);
    if (failures > 0) {
      failures--;
      call.failed = true;
      return sendJson(res, 503, { ok: false, error: 'service_unavailable' });
    }
    if (method === 'auth.test') return sendJson(res, 200, { ok: true, url: 'https://fake.slack.test/', team: 'Fake', user: 'roost', team_id: owner.teamId, user_id: owner.botUserId });
    if (method === 'chat.postMessage') {
      if (!args.channel) return sendJson(res, 200, { ok: false, error: 'channel_not_found' });
      call.ts = `${++ts}.000100`;
      return sendJson(res, 200, { ok: true, channel: args.channel, ts: call.ts, message: { text: args.text } });
    }
    if (method === 'chat.update') return sendJson(res, 200, { ok: true, channel: args.channel, ts: args.ts, text: args.text });
    return sendJson(res, 200, { ok: false, error: 'unknown_method' });
  });
  return {
    ...server,
    apiUrl: `${server.url}/api/`,
    calls,
    posts: (channel) => calls.filter((c) => c.method === 'chat.postMessage' && !c.failed && (!channel || c.args.channel === channel)),
    failNext: (n) => void (failures = n),
    addToken: (token, teamId, botUserId = 'UROOSTBOT') => void tokens.set(token, { teamId, botUserId }),
  };
}

/** The client sends form-encoded arguments (objects as JSON text) or JSON. */
function parseArgs(body: unknown): Record<string, any> {
  if (body && typeof body === 'object') return body as Record<string, any>;
  const args: Record<string, any> = {};
  for (const [name, value] of new URLSearchParams(typeof body === 'string' ? body : '')) {
    try {
      args[name] = name === 'blocks' || name === 'attachments' ? JSON.parse(value) : value;
    } catch {
      args[name] = value;
    }
  }
  return args;
}

/** Slack's request signature over `v0:{timestamp}:{body}`. */
export function slackHeaders(secret: string, body: string, timestamp = Math.floor(Date.now() / 1000)): Record<string, string> {
  const signature = `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex')}`;
  return { 'x-slack-request-timestamp': String(timestamp), 'x-slack-signature': signature };
}
