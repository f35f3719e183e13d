// The one way the app reaches the server: its public REST API on the page's own origin. A local owner
// sends no key (the server knows a loopback caller); a remote user's API key is kept in sessionStorage
// only (gone when the tab closes) and sent as a bearer token.
const KEY_STORAGE = 'roost.apiKey';

export class ApiError extends Error {
  /** `details` is the answer's own (a refused workflow's `problems`, say). */
  constructor(readonly status: number, readonly code: string, message: string, readonly details?: unknown) {
    super(message);
  }
}

export function apiKey(): string | null {
  try {
    return sessionStorage.getItem(KEY_STORAGE);
  } catch {
    return null;
  }
}

export function setApiKey(key: string | null): void {
  if (key) sessionStorage.setItem(KEY_STORAGE, key);
  else sessionStorage.removeItem(KEY_STORAGE);
}

export async function api<T = any>(method: string, path: string, body?: unknown, key = apiKey()): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (key) headers.authorization = `Bearer ${key}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'omit' });
  } catch {
    throw new ApiError(0, 'NETWORK', 'the server cannot be reached');
  }
  const text = await res.text();
  let data: any = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = text;
  }
  if (!res.ok) {
    const message = data && typeof data === 'object' && typeof data.error === 'string' ? data.error : `${res.status} ${res.statusText}`;
    throw new ApiError(res.status, data?.code ?? 'HTTP_ERROR', message, data?.details);
  }
  return data as T;
}

/** The records of a list answer, whatever its key (`agents`, `sessions`, `entries`…). */
export function listOf<T = any>(body: unknown, key?: string): T[] {
  if (Array.isArray(body)) return body as T[];
  if (!body || typeof body !== 'object') return [];
  const record = body as Record<string, unknown>;
  if (key && Array.isArray(record[key])) return record[key] as T[];
  const found = Object.values(record).find(Array.isArray);
  return (found as T[] | undefined) ?? [];
}

export const q = (params: Record<string, string | number | undefined | null>): string => {
  const entries = Object.entries(params).filter(([, v]) => v !== undefined && v !== null && v !== '');
  return entries.length ? `?${new URLSearchParams(entries.map(([k, v]) => [k, String(v)])).toString()}` : '';
};
