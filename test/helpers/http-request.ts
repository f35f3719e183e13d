// One HTTP request from a test, over node:http. The suite makes tens of thousands of them, and Node's
// fetch (undici, web streams, an AbortSignal per call) costs about three times the CPU of node:http for
// each; the test processes spent a fifth of their time in it. The answer keeps fetch's shape where the
// tests read it: headers read with get/has, the status, the body decoded as UTF-8.
import { request, type Agent } from 'node:http';

/**
 * An answer's headers as fetch's Headers reads them (any case; repeated ones joined with ", "), without
 * touching the global Headers: that alone loads Node's fetch, ~45 ms of CPU a test process.
 */
export class AnswerHeaders {
  private readonly values = new Map<string, string[]>();

  /** `raw`: names and values in turn, as received (IncomingMessage.rawHeaders). */
  constructor(raw: string[]) {
    for (let i = 0; i < raw.length; i += 2) {
      const name = raw[i]!.toLowerCase();
      const values = this.values.get(name);
      if (values) values.push(raw[i + 1]!);
      else this.values.set(name, [raw[i + 1]!]);
    }
  }

  get(name: string): string | null {
    return this.values.get(name.toLowerCase())?.join(', ') ?? null;
  }

  has(name: string): boolean {
    return this.values.has(name.toLowerCase());
  }
}

export interface HttpAnswer {
  status: number;
  headers: AnswerHeaders;
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
        resolve({ status: res.statusCode!, headers: new AnswerHeaders(res.rawHeaders), text: utf8.decode(Buffer.concat(chunks)) });
      });
    });
    // The open request keeps the process alive; the timer alone must not.
    const timer = setTimeout(() => req.destroy(new Error(`${method} ${url}: no answer within ${timeoutMs} ms`)), timeoutMs).unref();
    req.on('error', fail);
    req.end(body);
  });
}
