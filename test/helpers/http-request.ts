// One HTTP request from a test, over node:http. The suite makes tens of thousands of them, and Node's
// fetch (undici, web streams, an AbortSignal per call) costs about three times the CPU of node:http for
// each; the test processes spent a fifth of their time in it. The answer keeps fetch's shape where the
// tests read it: a Headers object, the status, the body decoded as UTF-8.
import { request, type Agent } from 'node:http';

export interface HttpAnswer {
  status: number;
  headers: Headers;
  text: string;
}

export interface HttpRequestOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** Keep-alive connections to reuse (one per server); without it, a connection per request. */
  agent?: Agent;
  /** No answer within this long fails the request instead of hanging the test. */
  timeoutMs?: number;
}

const utf8 = new TextDecoder();

export function httpRequest(url: string, options: HttpRequestOptions = {}): Promise<HttpAnswer> {
  const { method = 'GET', body, agent, timeoutMs = 60_000 } = options;
  const headers: Record<string, string> = { accept: '*/*', ...options.headers };
  if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
  return new Promise((resolve, reject) => {
    const fail = (err: Error) => {
      clearTimeout(timer);
      reject(err);
    };
    const req = request(url, { method, headers, ...(agent ? { agent } : {}) }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', fail);
      res.on('end', () => {
        clearTimeout(timer);
        const answer = new Headers();
        for (let i = 0; i < res.rawHeaders.length; i += 2) answer.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
        resolve({ status: res.statusCode!, headers: answer, text: utf8.decode(Buffer.concat(chunks)) });
      });
    });
    // The open request keeps the process alive; the timer alone must not.
    const timer = setTimeout(() => req.destroy(new Error(`${method} ${url}: no answer within ${timeoutMs} ms`)), timeoutMs).unref();
    req.on('error', fail);
    req.end(body);
  });
}
