// Reading JSON from where the user points roost: a local file, a file:// URL, or an http(s) URL.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { RoostError } from '../../protocol/errors.js';

const TIMEOUT_MS = 30_000;

export async function readJsonSource(location: string, what: string): Promise<unknown> {
  if (/^https?:\/\//.test(location)) {
    const res = await getJson(location, what);
    if (res.status !== 200) throw new RoostError('UPSTREAM_ERROR', `${what} at ${location} answered HTTP ${res.status}`);
    return res.body;
  }
  const path = location.startsWith('file://') ? fileURLToPath(location) : location;
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new RoostError('NOT_FOUND', `${what} file ${path} cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new RoostError('VALIDATION_ERROR', `${what} file ${path} is not valid JSON`);
  }
}

/** GET or POST JSON; answers the status and the parsed body (null when the body is not JSON). */
export async function getJson(url: string, what: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  let res: Response;
  try {
    res = await fetch(url, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { accept: 'application/json', 'user-agent': 'roost-deps (cli-plugin-deps)', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (err) {
    throw new RoostError('UPSTREAM_ERROR', `${what} at ${url} cannot be reached: ${(err as Error).cause ? String((err as { cause: unknown }).cause) : (err as Error).message}`);
  }
  const text = await res.text();
  try {
    return { status: res.status, body: JSON.parse(text) };
  } catch {
    return { status: res.status, body: null };
  }
}
