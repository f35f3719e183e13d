// The device side of RFC 8628 as the sign-in page runs it: ask for a code pair, then poll the token
// endpoint at the server's `interval`, 5 s more after each `slow_down` (§3.5), until a key, a denial or
// the code's end. Pure of the DOM (fetch and the wait are injected), so it runs in tests as it runs here.
export const DEVICE_CLIENT_ID = 'roost-dashboard';
const GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

export interface DeviceCode {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete?: string;
  expires_in: number;
  interval: number;
}

export type DeviceOutcome =
  | { kind: 'key'; key: string }
  | { kind: 'denied' }
  | { kind: 'expired' }
  | { kind: 'failed'; message: string };

export interface DeviceIo {
  fetch: typeof fetch;
  /** Resolves after `ms`, or rejects when the flow is abandoned. */
  wait(ms: number): Promise<void>;
  now(): number;
  /** Told every time the interval changes (a `slow_down`). */
  onInterval?(seconds: number): void;
}

async function post(io: DeviceIo, path: string, body: Record<string, string>): Promise<{ status: number; data: any }> {
  const res = await io.fetch(path, {
    method: 'POST',
    headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(body).toString(),
    credentials: 'omit',
  });
  let data: any = null;
  try {
    data = await res.json();
  } catch {
    data = null;
  }
  return { status: res.status, data };
}

const reason = (data: any, fallback: string): string =>
  typeof data?.error_description === 'string' ? data.error_description : typeof data?.error === 'string' ? data.error : fallback;

export async function requestDeviceCode(io: DeviceIo): Promise<DeviceCode> {
  const { status, data } = await post(io, '/api/auth/device', { client_id: DEVICE_CLIENT_ID });
  if (status !== 200 || typeof data?.device_code !== 'string') throw new Error(reason(data, `the server answered ${status}`));
  return data as DeviceCode;
}

export async function pollForKey(io: DeviceIo, code: DeviceCode): Promise<DeviceOutcome> {
  let interval = Math.max(1, code.interval || 5);
  const deadline = io.now() + code.expires_in * 1000;
  for (;;) {
    await io.wait(interval * 1000);
    if (io.now() > deadline) return { kind: 'expired' };
    let answer: { status: number; data: any };
    try {
      answer = await post(io, '/api/auth/device/token', { grant_type: GRANT, device_code: code.device_code, client_id: DEVICE_CLIENT_ID });
    } catch {
      continue; // The server could not be reached this once: the code may still be approved, so keep polling.
    }
    const { status, data } = answer;
    if (status === 200 && typeof data?.access_token === 'string') return { kind: 'key', key: data.access_token };
    switch (data?.error) {
      case 'authorization_pending':
        continue;
      case 'slow_down':
        interval += 5;
        io.onInterval?.(interval);
        continue;
      case 'access_denied':
        return { kind: 'denied' };
      case 'expired_token':
        return { kind: 'expired' };
      default:
        return { kind: 'failed', message: reason(data, `the server answered ${status}`) };
    }
  }
}

/** `verification_uri`'s kind of address only when it is http(s): anything else is not made a link. */
export const safeHref = (url: string | undefined): string | undefined => (url && /^https?:\/\//i.test(url) ? url : undefined);
