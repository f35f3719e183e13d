// What an inbound Slack request must pass before anything acts on it: a body that parses, a workspace
// that a tenant connected, and a valid, fresh signature under that tenant's signing secret.
import { RoostError, validationError } from '../../protocol/errors.js';
import type { RouteRequest } from '../_shared/extension.js';
import type { SlackBridge, SlackConfig } from './bridge.js';
import { verifySlackSignature } from './signature.js';

export function rawBody(req: RouteRequest): string {
  const body = typeof req.body === 'string' ? req.body : '';
  if (body === '') throw validationError('the request has no body');
  return body;
}

export function parseJson(text: string, what: string): Record<string, any> {
  try {
    const value = JSON.parse(text);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value;
  } catch {
    // answered below
  }
  throw validationError(`${what} is not a JSON object`);
}

/**
 * The configuration whose signing secret signed this request. A delivery names its workspace (team id);
 * the url_verification handshake names none, so every configured secret is tried.
 */
export async function signedBy(bridge: SlackBridge, req: RouteRequest, body: string, teamId: string | undefined): Promise<SlackConfig> {
  const candidates = teamId ? [await bridge.configs.byRouteKey(teamId)].filter((c) => c !== undefined) : await bridge.configs.all();
  let stale = false;
  for (const config of candidates) {
    const verdict = verifySlackSignature(config.secrets.signingSecret ?? '', req.headers, body);
    if (verdict === 'valid') return config;
    stale ||= verdict === 'stale';
  }
  if (candidates.length === 0 && teamId) throw new RoostError('NOT_FOUND', `no tenant has connected Slack workspace ${teamId}`);
  throw new RoostError('INVALID_SIGNATURE', stale ? 'the request timestamp is outside the five-minute window (a replay?)' : 'the Slack signature does not match', { status: 401 });
}
