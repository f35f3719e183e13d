// The device side of RFC 8628 against a Roost server: ask for a code pair, then poll the token
// endpoint at the interval the server asks for (five seconds more after each slow_down) until the
// person approves, denies, or the code expires.
import { RoostError } from '../../protocol/errors.js';

export const CLIENT_ID = 'roost-cli';
const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
const REQUEST_TIMEOUT_MS = 30_000;

export interface DeviceCodes {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete?: string;
  expires_in: number;
  interval?: number;
}

export interface Token {
  access_token: string;
  token_type: string;
  expires_in?: number;
  scope?: string;
}

async function post(url: string, form: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> }> {
  let res: Response;
  try {
    res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' }, body: new URLSearchParams(form), signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  } catch (err) {
    throw new RoostError('UPSTREAM_ERROR', `cannot reach ${new URL(url).origin}: ${(err as Error).message}`);
  }
  const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  return { status: res.status, body };
}

export async function requestCodes(server: string): Promise<DeviceCodes> {
  const { status, body } = await post(`${server}/api/auth/device`, { client_id: CLIENT_ID });
  if (status !== 200 || typeof body.device_code !== 'string' || typeof body.user_code !== 'string') {
    throw new RoostError('UPSTREAM_ERROR', `${server} did not start a device authorization (${status}): ${String(body.error_description ?? body.error ?? 'no reason given')}`);
  }
  return body as unknown as DeviceCodes;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function pollForToken(server: string, codes: DeviceCodes): Promise<Token> {
  let intervalMs = Math.max(1, codes.interval ?? 5) * 1000;
  const deadline = Date.now() + codes.expires_in * 1000;
  while (Date.now() < deadline) {
    await sleep(intervalMs);
    const { status, body } = await post(`${server}/api/auth/device/token`, { grant_type: DEVICE_GRANT, device_code: codes.device_code, client_id: CLIENT_ID });
    if (status === 200 && typeof body.access_token === 'string') return body as unknown as Token;
    switch (body.error) {
      case 'authorization_pending':
        continue;
      case 'slow_down':
        intervalMs += 5_000;
        continue;
      case 'access_denied':
        throw new RoostError('FORBIDDEN', 'the sign-in was denied in the browser');
      case 'expired_token':
        throw new RoostError('TIMEOUT', 'the code expired before it was approved: run roost login again');
      default:
        throw new RoostError('UPSTREAM_ERROR', `the server refused the sign-in (${status}): ${String(body.error_description ?? body.error ?? 'no reason given')}`);
    }
  }
  throw new RoostError('TIMEOUT', 'the code expired before it was approved: run roost login again');
}
