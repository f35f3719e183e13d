// Every request an extension makes to another server (a2a, marketplace federation, reputation): http(s)
// only, no redirects followed, a time limit and a size limit on the answer, and — unless the caller
// trusts the address (a remote an owner registered) — never to a link-local or cloud-metadata address.
// The address is checked when the socket connects (the lookup hook), so a name cannot resolve to one address when checked and another when used.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { BlockList, isIP } from 'node:net';
import { RoostError, validationError } from '../../protocol/errors.js';

const BLOCKED = new BlockList();
BLOCKED.addSubnet('169.254.0.0', 16, 'ipv4'); // link-local, including 169.254.169.254 (AWS, GCP, Azure metadata)
BLOCKED.addSubnet('0.0.0.0', 8, 'ipv4');
BLOCKED.addAddress('100.100.100.200', 'ipv4'); // Alibaba Cloud metadata
BLOCKED.addSubnet('fe80::', 10, 'ipv6'); // link-local
BLOCKED.addAddress('fd00:ec2::254', 'ipv6'); // AWS metadata over IPv6
const BLOCKED_NAMES = new Set(['metadata', 'metadata.google.internal', 'metadata.azure.internal']);

export interface OutboundRequest {
  method: 'GET' | 'POST';
  url: URL;
  headers?: Record<string, string>;
  body?: unknown;
  timeoutMs: number;
  maxBytes: number;
  /** Allow link-local and metadata addresses (a remote an owner registered). */
  trusted: boolean;
}

export interface OutboundReply {
  status: number;
  body: unknown;
  /** The answer's headers, lower-cased (an ETag, say). */
  headers: IncomingMessage['headers'];
}

/** An http(s) URL, or a VALIDATION_ERROR saying why not. */
export function parseHttpUrl(raw: string, what = 'url'): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw validationError(`${what} is not a URL: ${JSON.stringify(raw.slice(0, 200))}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw validationError(`${what} must be http or https, not ${url.protocol.replace(/:$/, '')}`);
  if (url.username || url.password) throw validationError(`${what} must not carry credentials`);
  return url;
}

export function blockedAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  const ip = mapped ?? address;
  const family = isIP(ip);
  return family !== 0 && BLOCKED.check(ip, family === 4 ? 'ipv4' : 'ipv6');
}

function refusedAddress(host: string): RoostError {
  return new RoostError('FORBIDDEN', `${host} is a link-local or cloud-metadata address; only a remote an owner registered may be reached there`);
}

/** Sends the request and reads a JSON answer (any status), within the time and size limits. */
export async function requestJson(req: OutboundRequest): Promise<OutboundReply> {
  const host = req.url.hostname.replace(/^\[|\]$/g, '');
  if (!req.trusted && (blockedAddress(host) || BLOCKED_NAMES.has(host.toLowerCase()))) throw refusedAddress(host);
  const payload = req.body === undefined ? undefined : JSON.stringify(req.body);
  const options: RequestOptions = {
    method: req.method,
    headers: { accept: 'application/json', ...(payload ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) } : {}), ...req.headers },
    signal: AbortSignal.timeout(req.timeoutMs),
    ...(req.trusted ? {} : { lookup: checkedLookup }),
  };
  const send = req.url.protocol === 'https:' ? httpsRequest : httpRequest;
  const where = `${req.method} ${req.url.origin}${req.url.pathname}`;
  return new Promise<OutboundReply>((resolve, reject) => {
    const fail = (err: unknown) => reject(explain(err, where, req.timeoutMs));
    const outgoing = send(req.url, options, (res) => readJson(res, req.maxBytes, where).then(resolve, fail));
    outgoing.on('error', fail);
    outgoing.end(payload);
  });
}

const checkedLookup: NonNullable<RequestOptions['lookup']> = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
    if (err) return callback(err, '', 0);
    const bad = addresses.find((a) => blockedAddress(a.address));
    if (bad) return callback(refusedAddress(`${hostname} (${bad.address})`), '', 0);
    if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
    callback(null, addresses[0]!.address, addresses[0]!.family);
  });
};

async function readJson(res: IncomingMessage, maxBytes: number, where: string): Promise<OutboundReply> {
  const status = res.statusCode ?? 0;
  if (status >= 300 && status < 400 && status !== 304) {
    res.resume();
    throw new RoostError('UPSTREAM_ERROR', `${where} answered a redirect (${status}) to ${res.headers.location ?? 'nowhere'}; redirects are not followed: use the final URL`, { status: 502 });
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) {
      res.destroy();
      throw new RoostError('UPSTREAM_ERROR', `${where} answered more than ${maxBytes} bytes; refused`, { status: 502 });
    }
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return { status, body: text === '' ? null : JSON.parse(text), headers: res.headers };
  } catch {
    throw new RoostError('UPSTREAM_ERROR', `${where} answered ${status} with a body that is not JSON`, { status: 502 });
  }
}

function explain(err: unknown, where: string, timeoutMs: number): RoostError {
  if (err instanceof RoostError) return err;
  const e = err as NodeJS.ErrnoException;
  if (e.name === 'AbortError' || e.name === 'TimeoutError') return new RoostError('UPSTREAM_ERROR', `${where} did not answer within ${timeoutMs} ms`, { status: 504 });
  if (e.cause instanceof RoostError) return e.cause;
  return new RoostError('UPSTREAM_ERROR', `${where} failed: ${e.code ?? e.message}`, { status: 502 });
}
