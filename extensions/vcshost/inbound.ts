// POST /webhooks/vcshost: the code host's webhook. The raw body's HMAC-SHA256 (header
// X-Hub-Signature-256) is checked with @octokit/webhooks-methods (constant time) against
// ROOST_EXT_VCSHOST_WEBHOOK_SECRET, and each delivery id (X-GitHub-Delivery) is taken once: a replay
// is refused. GitHub sends either content type a hook may pick: JSON, or form-encoded with the JSON in
// its `payload` field (the default); the signature covers the raw body either way. A comment that
// mentions an agent starts a session (mentions.ts) for the instance's
// tenant: the webhook secret is the deployment's, so its allowlist and agents are the instance owner's.
import { verify } from '@octokit/webhooks-methods';
import { RoostError } from '../../protocol/errors.js';
import type { ExtensionContext, RouteRequest } from '../../sdk/extension.js';
import { INSTANCE_TENANT } from '../../sdk/roles.js';
import { stringSetting } from '../../sdk/settings.js';
import type { Deliverer } from './deliveries.js';
import { handleMention } from './mentions.js';
import type { State } from './state.js';
import { VCSHOST_EVENTS, type PullState, type PullStateEvent } from './contract.js';

export async function receive(req: RouteRequest, ctx: ExtensionContext, state: State) {
  const secret = stringSetting(ctx, 'WEBHOOK_SECRET');
  if (!secret) throw new RoostError('EXTENSION_UNAVAILABLE', 'code-host webhooks are not configured: set ROOST_EXT_VCSHOST_WEBHOOK_SECRET');
  const payload = typeof req.body === 'string' ? req.body : '';
  const signature = req.headers['x-hub-signature-256'] ?? '';
  const valid = /^sha256=[0-9a-f]{64}$/.test(signature) && (await verify(secret, payload, signature).catch(() => false));
  if (!valid) throw new RoostError('AUTH_REQUIRED', 'the webhook signature (X-Hub-Signature-256) does not match the body');
  const delivery = req.headers['x-github-delivery'] ?? '';
  const event = req.headers['x-github-event'] ?? '';
  if (!/^[\w-]{1,100}$/.test(delivery) || !/^[a-z_]{1,60}$/.test(event)) throw new RoostError('VALIDATION_ERROR', 'X-GitHub-Delivery and X-GitHub-Event are required');
  const body = eventOf(payload, req.headers['content-type'] ?? '');
  try {
    await ctx.db('inbound_deliveries').insert({ delivery_id: delivery, event, outcome: 'received', received_at: new Date().toISOString() });
  } catch {
    throw new RoostError('CONFLICT', `delivery ${delivery} was received already (a replay)`);
  }
  const outcome = await act(ctx, state.deliverer, event, body);
  await ctx.db('inbound_deliveries').where({ delivery_id: delivery }).update({ outcome: JSON.stringify(outcome) });
  return { status: outcome.action === 'session_started' ? 202 : 200, body: { delivery, event, ...outcome } };
}

/** The event's JSON: the body itself, or the `payload` field of a form-encoded one. */
function eventOf(raw: string, contentType: string): Record<string, any> {
  const form = contentType.split(';')[0]!.trim().toLowerCase() === 'application/x-www-form-urlencoded';
  const json = form ? new URLSearchParams(raw).get('payload') : raw;
  if (json === null) throw new RoostError('VALIDATION_ERROR', 'a form-encoded webhook body must have a payload field');
  try {
    const parsed: unknown = JSON.parse(json);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed as Record<string, any>;
  } catch {
    // answered below
  }
  throw new RoostError('BAD_JSON', form ? 'the payload field of the webhook body is not a JSON object' : 'the webhook body is not a JSON object');
}

async function act(ctx: ExtensionContext, deliverer: Deliverer, event: string, body: Record<string, any>): Promise<{ action: string; [k: string]: unknown }> {
  if (event === 'ping') return { action: 'pong' };
  if (event === 'pull_request' && ['closed', 'reopened'].includes(String(body.action))) return pullState(ctx, body);
  if (!['issue_comment', 'pull_request_review_comment'].includes(event) || body.action !== 'created') return { action: 'ignored', reason: `event ${event}/${String(body.action)} starts nothing` };
  const repo = String(body.repository?.full_name ?? '');
  const number = body.issue?.number ?? body.pull_request?.number;
  return handleMention(ctx, deliverer, INSTANCE_TENANT, {
    repo, sender: String(body.comment?.user?.login ?? body.sender?.login ?? ''), text: String(body.comment?.body ?? ''),
    where: number ? `${repo}#${String(number)}` : repo, url: String(body.comment?.html_url ?? ''),
  });
}

/**
 * A pull request merged, closed or reopened: announced on the bus, where the work tasks that opened it
 * record the state (an event, not a call: work-tasks calls vcshost, so vcshost does not call back).
 */
function pullState(ctx: ExtensionContext, body: Record<string, any>): { action: string; [k: string]: unknown } {
  const state: PullState = body.action === 'reopened' ? 'open' : body.pull_request?.merged === true ? 'merged' : 'closed';
  const event: PullStateEvent = { repo: String(body.repository?.full_name ?? ''), number: Number(body.pull_request?.number), state };
  ctx.host.emit(VCSHOST_EVENTS.pullState, event, INSTANCE_TENANT);
  return { action: 'pull_request_announced', state };
}
