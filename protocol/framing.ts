// NDJSON framing: one compact JSON object per line. The decoder never throws on bad input: a line
// that does not parse, is not an object, grows past the frame limit or past the JSON limits (nesting
// depth above all) is dropped with a warning.
//
// A frame may carry a raw attachment: its JSON has `"attachment": N` (a byte count) and is followed by exactly
// N bytes and a newline. The attachment reaches the handler as a Buffer in place of the number, never
// parsed by the decoder: the kernel forwards request and reply bodies this way without decoding and
// re-encoding them (docs/protocol.md, "Attachments").

import { RoostError } from './errors.js';
import { frameJsonLimits, scanJsonLimits } from './json-limits.js';

export const DEFAULT_MAX_FRAME_BYTES = 16 * 1024 * 1024;
const NEWLINE = 0x0a;

export type FrameWarning =
  | { kind: 'oversize'; bytes: number }
  | { kind: 'invalid_json'; sample: string }
  | { kind: 'not_object'; sample: string }
  | { kind: 'bad_attachment'; sample: string }
  | { kind: 'over_limit'; reason: string; sample: string };

export interface DecoderHandlers {
  message(value: Record<string, unknown>): void;
  warning(warning: FrameWarning): void;
}

export function encodeFrame(message: object): string {
  return `${JSON.stringify(message)}\n`;
}

/**
 * A frame followed by its raw attachment (see above); `message` must not have an `attachment` field of
 * its own. A string attachment is sent as its UTF-8 bytes, in one string with the frame (no copy).
 */
export function encodeAttachmentFrame(message: object, attachment: Buffer | string): Buffer | string {
  const head = JSON.stringify(message);
  const bytes = typeof attachment === 'string' ? Buffer.byteLength(attachment) : attachment.length;
  const header = `${head.slice(0, -1)}${head.length > 2 ? ',' : ''}"attachment":${bytes}}\n`;
  if (typeof attachment === 'string') return `${header}${attachment}\n`;
  return Buffer.concat([Buffer.from(header), attachment, NEWLINE_BYTE]);
}

const NEWLINE_BYTE = Buffer.from('\n');

/** An attachment's value: text as a string, JSON parsed (empty is null); bad JSON is the sender's VALIDATION_ERROR. */
export function decodeAttachment(attachment: Buffer | string, encoding: 'json' | 'text'): unknown {
  const text = typeof attachment === 'string' ? attachment : attachment.toString('utf8');
  if (encoding === 'text') return text;
  try {
    return text === '' ? null : (JSON.parse(text) as unknown);
  } catch {
    throw new RoostError('VALIDATION_ERROR', 'the body is not valid JSON');
  }
}

export class LineDecoder {
  /** The bytes of the current line so far. Lines are cut on the newline byte, which never occurs inside a
   * multi-byte UTF-8 character, and decoded whole, so a character split across chunks is never broken. */
  private parts: Buffer[] = [];
  private size = 0;
  /** True while the rest of an over-long line is counted and dropped until its newline arrives. */
  private skipping = false;
  /** The frame whose attachment bytes are being collected, and how many are still to come. */
  private awaiting: { message: Record<string, unknown>; parts: Buffer[]; remaining: number; size: number } | undefined;

  constructor(
    private readonly handlers: DecoderHandlers,
    private readonly maxFrameBytes = DEFAULT_MAX_FRAME_BYTES,
  ) {}

  push(chunk: Buffer | string): void {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    let start = 0;
    while (this.awaiting && start < bytes.length) start = this.takeAttachment(bytes, start);
    let newline = bytes.indexOf(NEWLINE, start);
    while (newline !== -1) {
      this.take(bytes.subarray(start, newline));
      this.finishLine();
      start = newline + 1;
      while (this.awaiting && start < bytes.length) start = this.takeAttachment(bytes, start);
      newline = bytes.indexOf(NEWLINE, start);
    }
    this.take(bytes.subarray(start));
  }

  /** Flushes a last line that had no trailing newline (the stream ended). */
  end(): void {
    if (this.awaiting) {
      this.handlers.warning({ kind: 'bad_attachment', sample: `stream ended ${this.awaiting.remaining} bytes short of a attachment` });
      this.awaiting = undefined;
    }
    this.finishLine();
  }

  /** Collects attachment bytes from `start`; returns where the bytes after the attachment (and its newline) begin. */
  private takeAttachment(bytes: Buffer, start: number): number {
    const awaiting = this.awaiting!;
    if (awaiting.remaining > 0) {
      const part = bytes.subarray(start, start + awaiting.remaining);
      awaiting.parts.push(part);
      awaiting.remaining -= part.length;
      return start + part.length;
    }
    this.awaiting = undefined;
    if (bytes[start] !== NEWLINE) {
      // The attachment was not followed by its newline: the sender is out of step; drop the frame and let the
      // line decoder resynchronise on the next newline.
      this.handlers.warning({ kind: 'bad_attachment', sample: 'a attachment was not followed by a newline' });
      return start;
    }
    const { message, parts, size } = awaiting;
    message.attachment = parts.length === 1 ? parts[0]! : Buffer.concat(parts, size);
    this.handlers.message(message);
    return start + 1;
  }

  private expectAttachment(message: Record<string, unknown>): void {
    const size = message.attachment;
    if (!Number.isInteger(size) || (size as number) < 0 || (size as number) > this.maxFrameBytes) {
      this.handlers.warning({ kind: 'bad_attachment', sample: `attachment size ${String(size).slice(0, 40)}` });
      return;
    }
    this.awaiting = { message, parts: [], remaining: size as number, size: size as number };
  }

  private take(part: Buffer): void {
    if (part.length === 0) return;
    this.size += part.length;
    if (this.skipping) return;
    if (this.size > this.maxFrameBytes) {
      this.skipping = true;
      this.parts = [];
      return;
    }
    this.parts.push(part);
  }

  private finishLine(): void {
    const { parts, size, skipping } = this;
    this.parts = [];
    this.size = 0;
    this.skipping = false;
    if (skipping) return this.handlers.warning({ kind: 'oversize', bytes: size });
    if (size === 0) return;
    const trimmed = (parts.length === 1 ? parts[0]! : Buffer.concat(parts, size)).toString('utf8').trim();
    if (trimmed === '') return;
    // Before JSON.parse, so nothing that recurses ever sees a frame nested too deep.
    const overLimit = scanJsonLimits(trimmed, frameJsonLimits(this.maxFrameBytes));
    if (overLimit) return this.handlers.warning({ kind: 'over_limit', reason: overLimit, sample: trimmed.slice(0, 120) });
    let value: unknown;
    try {
      value = JSON.parse(trimmed);
    } catch {
      this.handlers.warning({ kind: 'invalid_json', sample: trimmed.slice(0, 120) });
      return;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value) || typeof (value as { type?: unknown }).type !== 'string') {
      this.handlers.warning({ kind: 'not_object', sample: trimmed.slice(0, 120) });
      return;
    }
    if ((value as { attachment?: unknown }).attachment !== undefined) return this.expectAttachment(value as Record<string, unknown>);
    this.handlers.message(value as Record<string, unknown>);
  }
}
