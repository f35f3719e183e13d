// What an inbound Slack request must pass before anything acts on it: a body that parses, a workspace
// that a tenant connected, and a valid, fresh signature under that tenant's signing secret. An unknown
// workspace is answered exactly like a bad signature, so nobody can probe which workspaces are connected.
import { randomBytes } from 'node:crypto';
import { RoostError, validationError } from '../../protocol/errors.js';
import type { RouteRequest } from '../../sdk/extension.js';
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

const mismatch = () => new RoostError('INVALID_SIGNATURE', 'the Slack signature does not match', { status: 401 });

/**
 * The configuration whose signing secret signed this request. Every delivery names its workspace (team
 * id) and is checked against that tenant's secret only. The url_verification handshake names none, so it
 * is tried against every configured secret: that costs a decryption per tenant, so few are taken a minute.
 */
export async function signedBy(bridge: SlackBridge, req: RouteRequest, body: string, payload: Record<string, any>): Promise<SlackConfig> {
  const teamId = typeof payload.team_id === 'string' ? payload.team_id : typeof payload.team?.id === 'string' ? payload.team.id : undefined;
  let candidates: SlackConfig[];
  if (teamId) {
    candidates = [await bridge.configs.byRouteKey(teamId)].filter((c) => c !== undefined);
  } else if (payload.type === 'url_verification') {
    if (!bridge.handshakes.take('url_verification')) throw new RoostError('RATE_LIMITED', 'too many url_verification handshakes; try again in a minute');
    candidates = await bridge.configs.all();
  } else {
    throw validationError('the request names no workspace (team_id)');
  }
  // An unknown workspace does the same work as a known one with a wrong signature.
  if (candidates.length === 0) verifySlackSignature(randomBytes(16).toString('hex'), req.headers, body);
  let stale = false;
  for (const config of candidates) {
    const verdict = verifySlackSignature(config.secrets.signingSecret ?? '', req.headers, body);
    if (verdict === 'valid') return config;
    stale ||= verdict === 'stale';
  }
  if (stale) throw new RoostError('INVALID_SIGNATURE', 'the request timestamp is outside the five-minute window (a replay?)', { status: 401 });
  throw mismatch();
}
