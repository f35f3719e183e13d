// The fetch a Streamable HTTP transport is given: node:http(s) with the outbound guard's lookup, so the
// address checked is the one connected to, within the config's reach (sdk/reach.ts).
// Redirects are answered as they come (never followed: the SDK reports them as errors). The answer's body
// streams, as the transport's server-sent events need.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { validationError } from '../../protocol/errors.js';
import { blockedAddress, checkedLookup, refusedAddress, type Reach } from '../../sdk/outbound.js';
import { portOf } from '../../sdk/reach.js';

/** Statuses whose answer has no body (a Response refuses one). */
const NO_BODY = new Set([101, 204, 205, 304]);

export function guardedFetch(reachOf: (port: number) => Reach): FetchLike {
  return async (input, init = {}) => {
    const url = new URL(String(input));
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw validationError(`only http and https URLs are reached, not ${url.protocol}`);
    const reach = reachOf(portOf(url));
    const host = url.hostname.replace(/^\[|\]$/g, '');
    // An IP literal is never looked up: check it here; a name is checked as it resolves.
    if (blockedAddress(host, reach)) throw refusedAddress(host, reach);
    const body = init.body;
    if (body !== undefined && body !== null && typeof body !== 'string') throw new TypeError('guardedFetch sends string bodies only');
    const headers = Object.fromEntries(new Headers(init.headers).entries());
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const answer = await new Promise<IncomingMessage>((resolve, reject) => {
      const outgoing = send(url, { method: init.method ?? 'GET', headers, lookup: checkedLookup(reach), ...(init.signal ? { signal: init.signal } : {}) }, resolve);
      outgoing.on('error', reject);
      outgoing.end(body ?? undefined);
    });
    const status = answer.statusCode ?? 502;
    const responseHeaders = new Headers();
    for (let i = 0; i < answer.rawHeaders.length; i += 2) responseHeaders.append(answer.rawHeaders[i]!, answer.rawHeaders[i + 1]!);
    if (NO_BODY.has(status) || init.method === 'HEAD') {
      answer.resume();
      return new Response(null, { status, statusText: answer.statusMessage ?? '', headers: responseHeaders });
    }
    return new Response(Readable.toWeb(answer) as ReadableStream<Uint8Array>, { status, statusText: answer.statusMessage ?? '', headers: responseHeaders });
  };
}
