// Plumbing shared by the fake model providers: a loopback HTTP server on a free port that records every
// request and answers from a script, and can be closed even while it holds hanging requests.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  /** The parsed JSON body; the raw text when it is not JSON; undefined when there is none. */
  body: any;
}

/** A list is played in order and its last reply repeats; a function answers each request itself. */
export type Script<Reply> = Reply[] | ((request: RecordedRequest) => Reply | Promise<Reply>);

export class ScriptPlayer<Reply> {
  #script: Script<Reply>;
  #next = 0;

  constructor(script: Script<Reply>) {
    this.#script = script;
  }

  set(script: Script<Reply>): void {
    this.#script = script;
    this.#next = 0;
  }

  async next(request: RecordedRequest): Promise<Reply> {
    const script = this.#script;
    if (typeof script === 'function') return script(request);
    if (script.length === 0) throw new Error('the fake has an empty script');
    const reply = script[Math.min(this.#next, script.length - 1)]!;
    this.#next++;
    return reply;
  }
}

export interface FakeServer {
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export type Handler = (request: RecordedRequest, res: ServerResponse, closed: AbortSignal) => Promise<void>;

export async function startFakeServer(handler: Handler): Promise<FakeServer> {
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer(async (req, res) => {
    const closed = new AbortController();
    res.on('close', () => closed.abort());
    const url = new URL(req.url ?? '/', 'http://fake');
    const recorded: RecordedRequest = { method: req.method ?? 'GET', path: url.pathname, headers: req.headers, body: await readBody(req) };
    requests.push(recorded);
    try {
      await handler(recorded, res, closed.signal);
    } catch (err) {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(`fake server failure: ${(err as Error).message}`);
    }
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  if (chunks.length === 0) return undefined;
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** Resolves after `ms`, or as soon as the client goes away. */
export function wait(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** Never resolves on its own: the request hangs until the client gives up or the fake closes. */
export function hang(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve()));
}

/** Splits text into small pieces, the way a model streams it. */
export function chunks(text: string, size = 12): string[] {
  const pieces: string[] = [];
  for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size));
  return pieces;
}
