// One end of a cli-v1 conversation. It frames messages, correlates requests with responses by id,
// times requests out, dispatches incoming messages to handlers by type, and answers requests whose
// handler returns (or throws). Both the host and the plugin side use this same class.
import type { Readable, Writable } from 'node:stream';
import { RoostError, toRoostError } from './errors.js';
import { DEFAULT_MAX_FRAME_BYTES, encodeFrame, encodeAttachmentFrame, LineDecoder, type FrameWarning } from './framing.js';
import type { ResponseMessage, WireError } from './messages.js';

export type IncomingMessage = Record<string, unknown> & { type: string; id?: unknown };
export type MessageHandler = (message: IncomingMessage) => unknown;
export type PeerWarning = FrameWarning | { kind: 'unmatched_response'; id: string } | { kind: 'handler_failed'; type: string; error: string };

export interface PeerOptions {
  /** Default per-request timeout; 0 disables it. */
  timeoutMs?: number;
  maxFrameBytes?: number;
  onWarning?: (warning: PeerWarning) => void;
  /** Messages without a handler; by default requests among them are answered UNKNOWN_TYPE. */
  onUnhandled?: (message: IncomingMessage) => void;
  /**
   * Gathers the frames written during one turn of the event loop: the first is written at once (no
   * latency added to a lone request), the others are corked and written together when the turn ends
   * (setImmediate): one system call, and one wake-up of the reader, for many messages under load.
   * Only for an output whose owner ends it with end(), which flushes; a process that may exit right
   * after writing (a plugin on its stdout) must not use it, or its last frames could be lost.
   */
  coalesceWrites?: boolean;
  /**
   * With coalesceWrites: how often deferred messages (notifyDeferred: ones nobody waits on, such as
   * events) may cost a write of their own. One that comes when nothing was written for this many
   * milliseconds leaves at once (within a millisecond); later ones wait until this long after the last
   * write, or leave with the first frame of a later turn: under load many go in one write, and their
   * reader wakes once for them all.
   */
  deferMs?: number;
}

export interface RequestOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
  /** An id chosen by the caller (unique among its requests in flight); by default the peer numbers them. */
  id?: string;
  /** Raw bytes sent after the frame (see framing.ts); the other side finds them as `message.attachment`. */
  attachment?: Buffer | string;
}

/**
 * What a handler returns to answer with a raw attachment after the response frame. The requester's
 * `request()` resolves with `value` and the bytes as its `attachment` field.
 */
export class WithAttachment {
  constructor(
    readonly value: Record<string, unknown>,
    /** Bytes, or a string sent as its UTF-8 bytes. */
    readonly attachment: Buffer | string,
  ) {}
}

export type OutgoingMessage = { type: string; [field: string]: unknown } | ({ type: string } & object);

interface Pending {
  resolve(value: unknown): void;
  reject(error: RoostError): void;
  timer: NodeJS.Timeout | undefined;
  type: string;
  /** Detaches the abort listener, so a long-lived signal does not collect one per request. */
  detach?: () => void;
}

export class Peer {
  private readonly handlers = new Map<string, MessageHandler>();
  private readonly pending = new Map<string, Pending>();
  /** Requests given up through their signal: their responses still come, and are dropped without a warning. */
  private readonly abandoned = new Set<string>();
  private readonly decoder: LineDecoder;
  private nextId = 0;
  private closedWith: RoostError | undefined;
  /** coalesceWrites: a frame was written in this turn of the event loop, and later ones are corked. */
  private writtenThisTurn = false;
  private corked = false;
  /** deferMs: when the deferred frames written so far must go out. */
  private deferTimer: NodeJS.Timeout | undefined;
  /** performance.now() of the last write that reached the output (coalesceWrites). */
  private lastWriteAt = -Infinity;

  constructor(
    private readonly output: Writable,
    private readonly options: PeerOptions = {},
  ) {
    this.decoder = new LineDecoder(
      { message: (m) => this.receive(m as IncomingMessage), warning: (w) => this.warn(w) },
      options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES,
    );
  }

  /** Starts reading frames from a stream (a child's stdout, or process.stdin on the plugin side). */
  attach(input: Readable): this {
    input.on('data', (chunk: Buffer) => this.decoder.push(chunk));
    input.on('end', () => this.decoder.end());
    return this;
  }

  /** Feeds raw bytes, for transports that are not streams. */
  push(chunk: Buffer | string): void {
    this.decoder.push(chunk);
  }

  handle(type: string, handler: MessageHandler): this {
    this.handlers.set(type, handler);
    return this;
  }

  get inFlight(): number {
    return this.pending.size;
  }

  get closed(): boolean {
    return this.closedWith !== undefined;
  }

  /** Sends a message that expects one response and resolves with its value. */
  request<T = unknown>(message: OutgoingMessage, options: RequestOptions = {}): Promise<T> {
    if (this.closedWith) return Promise.reject(this.closedWith);
    const cancelled = () => new RoostError('CANCELLED', `${message.type} was cancelled`);
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(cancelled());
    const id = options.id ?? `${++this.nextId}`;
    const timeoutMs = options.timeoutMs ?? this.options.timeoutMs ?? 0;
    return new Promise<T>((resolve, reject) => {
      const entry: Pending = { resolve: resolve as (v: unknown) => void, reject, timer: undefined, type: message.type };
      if (timeoutMs > 0) {
        entry.timer = setTimeout(() => {
          if (this.settle(id)) reject(new RoostError('TIMEOUT', `${message.type} got no response within ${timeoutMs} ms`));
        }, timeoutMs);
        entry.timer.unref?.();
      }
      if (signal) {
        const onAbort = () => {
          if (!this.settle(id)) return;
          this.abandoned.add(id);
          reject(cancelled());
        };
        signal.addEventListener('abort', onAbort, { once: true });
        entry.detach = () => signal.removeEventListener('abort', onAbort);
      }
      this.pending.set(id, entry);
      this.write({ ...message, id }, options.attachment);
    });
  }

  /** Sends a message that expects no answer. */
  notify(message: OutgoingMessage): void {
    if (!this.closedWith) this.write(message);
  }

  respond(id: string, value: unknown): void {
    if (value instanceof WithAttachment) {
      if (!this.closedWith) this.write({ type: 'response', id, value: value.value }, value.attachment);
      return;
    }
    this.notify({ type: 'response', id, value: value === undefined ? null : value });
  }

  respondError(id: string, error: WireError): void {
    this.notify({ type: 'response', id, error: { code: error.code, message: error.message, ...(error.details === undefined ? {} : { details: error.details }) } });
  }

  /** Fails every request still waiting (the other side is gone) and refuses new ones. */
  close(reason: RoostError): void {
    if (this.closedWith) return;
    this.closedWith = reason;
    this.abandoned.clear();
    for (const id of [...this.pending.keys()]) this.settle(id)?.reject(reason);
  }

  /** A message nobody waits on, written as often as `deferMs` allows (PeerOptions); at once without it. */
  notifyDeferred(message: OutgoingMessage): void {
    if (!this.closedWith) this.write(message, undefined, this.options.coalesceWrites === true && (this.options.deferMs ?? 0) > 0);
  }

  private write(message: object, attachment?: Buffer | string, deferred = false): void {
    const output = this.output as Writable & { destroyed?: boolean; writableEnded?: boolean };
    if (output.destroyed || output.writableEnded) return;
    const frame = attachment ? encodeAttachmentFrame(message, attachment) : encodeFrame(message);
    if (!this.options.coalesceWrites) return void output.write(frame);
    if (deferred) {
      this.cork(output);
      this.deferTimer ??= setTimeout(this.flush, Math.max(0, this.lastWriteAt + this.options.deferMs! - performance.now()));
      output.write(frame);
    } else if (!this.writtenThisTurn) {
      // The turn's first frame goes at once, and deferred frames waiting go with it (one write).
      this.writtenThisTurn = true;
      setImmediate(this.endTurn);
      output.write(frame);
      this.lastWriteAt = performance.now();
      this.flush();
    } else {
      this.cork(output);
      output.write(frame);
    }
  }

  private cork(output: Writable): void {
    if (this.corked) return;
    this.corked = true;
    output.cork();
  }

  private readonly endTurn = (): void => {
    this.writtenThisTurn = false;
    this.flush();
  };

  private readonly flush = (): void => {
    clearTimeout(this.deferTimer);
    this.deferTimer = undefined;
    if (!this.corked) return;
    this.corked = false;
    this.lastWriteAt = performance.now();
    this.output.uncork();
  };

  private settle(id: string): Pending | undefined {
    const entry = this.pending.get(id);
    if (!entry) return undefined;
    this.pending.delete(id);
    if (entry.timer) clearTimeout(entry.timer);
    entry.detach?.();
    return entry;
  }

  private receive(message: IncomingMessage): void {
    if (message.type === 'response') return this.receiveResponse(message as unknown as ResponseMessage);
    const handler = this.handlers.get(message.type);
    const id = typeof message.id === 'string' ? message.id : undefined;
    if (!handler) {
      if (this.options.onUnhandled) return this.options.onUnhandled(message);
      if (id !== undefined) this.respondError(id, { code: 'UNKNOWN_TYPE', message: `unknown message type "${message.type}"` });
      return;
    }
    let result: unknown;
    try {
      result = handler(message);
    } catch (err) {
      return this.answerFailure(id, message.type, err);
    }
    if (id === undefined) {
      if (isPromise(result)) result.catch((err) => this.warnFailure(message.type, err));
      return;
    }
    if (isPromise(result)) {
      result.then((value) => this.respond(id, value), (err) => this.answerFailure(id, message.type, err));
    } else {
      this.respond(id, result);
    }
  }

  private receiveResponse(message: ResponseMessage): void {
    const id = typeof message.id === 'string' ? message.id : String(message.id);
    const entry = this.settle(id);
    if (!entry) return this.abandoned.delete(id) ? undefined : this.warn({ kind: 'unmatched_response', id });
    if (message.error && typeof message.error === 'object') {
      const code = typeof message.error.code === 'string' ? message.error.code : 'PROTOCOL_ERROR';
      const text = typeof message.error.message === 'string' ? message.error.message : 'request failed';
      entry.reject(new RoostError(code, text, message.error.details === undefined ? {} : { details: message.error.details }));
    } else if (Buffer.isBuffer((message as { attachment?: unknown }).attachment)) {
      const value = typeof message.value === 'object' && message.value !== null ? message.value : {};
      entry.resolve({ ...value, attachment: (message as { attachment?: unknown }).attachment });
    } else {
      entry.resolve(message.value);
    }
  }

  private answerFailure(id: string | undefined, type: string, err: unknown): void {
    if (id === undefined) return this.warnFailure(type, err);
    const error = toRoostError(err);
    if (error.code === 'INTERNAL') this.warnFailure(type, err);
    this.respondError(id, { code: error.code, message: error.message, details: error.details });
  }

  private warnFailure(type: string, err: unknown): void {
    this.warn({ kind: 'handler_failed', type, error: err instanceof Error ? err.message : String(err) });
  }

  private warn(warning: PeerWarning): void {
    this.options.onWarning?.(warning);
  }
}

function isPromise(value: unknown): value is Promise<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as Promise<unknown>).then === 'function';
}
