// Requests extensions make to other servers: http(s) only, no redirects followed, a time limit and a
// size limit on the answer, and a reach: `no-metadata` (never a link-local or cloud-metadata address), `no-loopback` (not this machine's loopback either: a loopback
// caller without a key is the instance owner) or `public` (not a loopback, private, shared or reserved
// address either). The address is checked when the socket connects (the lookup hook), so a name cannot
// resolve to one address when checked and another when used.
import { lookup as dnsLookup, promises as dnsPromises, type LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { BlockList, isIP } from 'node:net';
import { RoostError, validationError } from '../protocol/errors.js';

/** Which addresses a request may reach. */
export type Reach = 'no-metadata' | 'no-loopback' | 'public';

const BLOCKED = new BlockList();
BLOCKED.addSubnet('169.254.0.0', 16, 'ipv4'); // link-local, including 169.254.169.254 (AWS, GCP, Azure metadata)
BLOCKED.addSubnet('0.0.0.0', 8, 'ipv4');
BLOCKED.addAddress('100.100.100.200', 'ipv4'); // Alibaba Cloud metadata
BLOCKED.addSubnet('fe80::', 10, 'ipv6'); // link-local
BLOCKED.addAddress('fd00:ec2::254', 'ipv6'); // AWS metadata over IPv6
const BLOCKED_NAMES = new Set(['metadata', 'metadata.google.internal', 'metadata.azure.internal']);

const PRIVATE = new BlockList();
PRIVATE.addSubnet('127.0.0.0', 8, 'ipv4');
PRIVATE.addSubnet('10.0.0.0', 8, 'ipv4');
PRIVATE.addSubnet('172.16.0.0', 12, 'ipv4');
PRIVATE.addSubnet('192.168.0.0', 16, 'ipv4');
PRIVATE.addSubnet('100.64.0.0', 10, 'ipv4'); // carrier-grade NAT
PRIVATE.addSubnet('192.0.0.0', 24, 'ipv4'); // IETF protocol assignments
PRIVATE.addSubnet('198.18.0.0', 15, 'ipv4'); // benchmarking
PRIVATE.addSubnet('224.0.0.0', 4, 'ipv4'); // multicast
PRIVATE.addSubnet('240.0.0.0', 4, 'ipv4'); // reserved, and broadcast
PRIVATE.addAddress('::1', 'ipv6');
PRIVATE.addAddress('::', 'ipv6');
PRIVATE.addSubnet('fc00::', 7, 'ipv6'); // unique local
PRIVATE.addSubnet('ff00::', 8, 'ipv6'); // multicast
const PRIVATE_NAMES = new Set(['localhost']);

/** This machine: loopback, and the unspecified addresses (connecting to them reaches this host too). */
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');
LOOPBACK.addAddress('::', 'ipv6');

export interface OutboundRequest {
  method: 'GET' | 'POST';
  url: URL;
  headers?: Record<string, string>;
  /** Sent as JSON. */
  body?: unknown;
  /** Sent exactly as given (a body that was signed, say), instead of `body`; name its content type in `headers`. */
  payload?: string;
  timeoutMs: number;
  maxBytes: number;
  reach: Reach;
  /** How the answer is read: JSON (the default), plain text or raw bytes (a Buffer). */
  read?: 'json' | 'text' | 'bytes';
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

/** Whether the address or name is outside the reach. */
export function blockedAddress(address: string, reach: Reach): boolean {
  const name = address.toLowerCase();
  const noLocal = reach === 'public' || reach === 'no-loopback';
  if (BLOCKED_NAMES.has(name) || (noLocal && (PRIVATE_NAMES.has(name) || name.endsWith('.localhost')))) return true;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  const ip = mapped ?? address;
  const family = isIP(ip);
  if (family === 0) return false;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  return BLOCKED.check(ip, type) || (reach === 'public' && PRIVATE.check(ip, type)) || (reach === 'no-loopback' && LOOPBACK.check(ip, type));
}

/** 403 FORBIDDEN naming the host (and the address it resolved to) and what the reach allows. */
export function refusedAddress(host: string, reach: Reach, address = host): RoostError {
  const shown = address === host ? host : `${host} (${address})`;
  if (reach === 'public') return new RoostError('FORBIDDEN', `${shown} is a loopback, private, link-local or reserved address; only public addresses may be reached from here`);
  if (reach === 'no-loopback' && !blockedAddress(address, 'no-metadata')) {
    return new RoostError('FORBIDDEN', `${shown} is this machine (a loopback address), which may not be reached from here`);
  }
  return new RoostError('FORBIDDEN', `${shown} is a link-local or cloud-metadata address; only an address an owner registered may be reached there`);
}

/**
 * Refuses (403 FORBIDDEN) a URL whose host is, or resolves to, an address outside the reach: for checking
 * a target when it is registered. The request itself checks again as it connects.
 */
export async function checkReach(url: URL, reach: Reach): Promise<void> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (blockedAddress(host, reach)) throw refusedAddress(host, reach);
  if (isIP(host)) return;
  const addresses = await dnsPromises.lookup(host, { all: true }).catch(() => []);
  if (addresses.length === 0) throw validationError(`the host ${host} does not resolve`);
  const bad = addresses.find((a) => blockedAddress(a.address, reach));
  if (bad) throw refusedAddress(host, reach, bad.address);
}

/** Sends the request and reads its answer (any status), within the time and size limits. */
export async function request(req: OutboundRequest): Promise<OutboundReply> {
  const host = req.url.hostname.replace(/^\[|\]$/g, '');
  if (blockedAddress(host, req.reach)) throw refusedAddress(host, req.reach);
  const payload = req.payload ?? (req.body === undefined ? undefined : JSON.stringify(req.body));
  const options: RequestOptions = {
    method: req.method,
    headers: { accept: (req.read ?? 'json') === 'json' ? 'application/json' : '*/*', ...(payload ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) } : {}), ...req.headers },
    signal: AbortSignal.timeout(req.timeoutMs),
    lookup: checkedLookup(req.reach),
  };
  const send = req.url.protocol === 'https:' ? httpsRequest : httpRequest;
  const where = `${req.method} ${req.url.origin}${req.url.pathname}`;
  return new Promise<OutboundReply>((resolve, reject) => {
    const fail = (err: unknown) => reject(explain(err, where, req.timeoutMs));
    const outgoing = send(req.url, options, (res) => readBody(res, req.maxBytes, where, req.read ?? 'json').then(resolve, fail));
    outgoing.on('error', fail);
    outgoing.end(payload);
  });
}

/**
 * A `lookup` for sockets (http.request, net.connect, a client library's http.Agent) that refuses names
 * resolving outside the reach. IP literals skip lookups: check them with blockedAddress first.
 */
export function checkedLookup(reach: Reach): NonNullable<RequestOptions['lookup']> {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, '', 0);
      const bad = addresses.find((a) => blockedAddress(a.address, reach));
      if (bad) return callback(refusedAddress(hostname, reach, bad.address), '', 0);
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}

async function readBody(res: IncomingMessage, maxBytes: number, where: string, read: NonNullable<OutboundRequest['read']>): Promise<OutboundReply> {
  const status = res.statusCode ?? 0;
  // 304 Not Modified answers a conditional request; it is no redirect.
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
  if (read === 'bytes') return { status, body: Buffer.concat(chunks), headers: res.headers };
  const text = Buffer.concat(chunks).toString('utf8');
  if (read === 'text') return { status, body: text, headers: res.headers };
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
