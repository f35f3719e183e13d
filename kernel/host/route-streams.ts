// Streamed route replies (docs/protocol.md, "Streamed replies"): a `request` answered `{stream: true}`
// has its body follow as `route_chunk` messages naming the request. Each request to an extension gets
// its body stream before it is sent, so a chunk that overtakes the reply's continuation is kept; a reply
// that is not streamed drops it. The stream ends at the extension's `end`, or when the extension exits;
// when the HTTP client goes first, the extension is told with `route_closed`.
import { PassThrough, Readable } from 'node:stream';
import type { OutgoingMessage } from '../../protocol/peer.js';

/** How much of a streamed body may wait for a slow client before the stream is cut (an SSE event is small). */
const MAX_BUFFERED_BYTES = 8 * 1024 * 1024;

export class RouteStreams {
  private readonly open = new Map<string, { body: PassThrough; ended: boolean }>();

  constructor(private readonly notify: (message: OutgoingMessage) => void) {}

  /** Before a request is sent: where its chunks go, should its reply say it streams. */
  expect(requestId: string): void {
    this.open.set(requestId, { body: new PassThrough({ highWaterMark: MAX_BUFFERED_BYTES }), ended: false });
  }

  /** After the reply came: the body of a streamed reply (closing it tells the extension); nothing else. */
  settle(requestId: string, streamed: boolean): Readable | undefined {
    const entry = this.open.get(requestId);
    if (!entry) return undefined;
    if (!streamed) {
      this.open.delete(requestId);
      return undefined;
    }
    entry.body.once('close', () => {
      this.open.delete(requestId);
      if (!entry.ended) this.notify({ type: 'route_closed', request: requestId });
    });
    return entry.body;
  }

  /** A `route_chunk` from the extension. */
  chunk(requestId: string, data: string | undefined, end: boolean): void {
    const entry = this.open.get(requestId);
    if (!entry || entry.ended) return;
    if (data) {
      entry.body.write(data);
      // A client that reads nothing does not hold the extension's output in memory for ever.
      if (entry.body.writableLength > MAX_BUFFERED_BYTES) return void entry.body.destroy();
    }
    if (end) {
      entry.ended = true;
      entry.body.end();
    }
  }

  /** The extension exited: every open body ends there. */
  endAll(): void {
    for (const entry of this.open.values()) {
      entry.ended = true;
      entry.body.end();
    }
  }
}

/** Runs `then` once a streamed reply's body closes; false (and nothing runs) for any other reply. */
export function whenStreamCloses(reply: unknown, then: () => void): boolean {
  const body = (reply as { body?: unknown } | null)?.body;
  if (!(body instanceof Readable)) return false;
  body.once('close', then);
  return true;
}
