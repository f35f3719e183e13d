// NDJSON framing: one compact JSON object per line. The decoder never throws on bad input: a line
// that does not parse, is not an object, or grows past the frame limit is dropped with a warning.
import { StringDecoder } from 'node:string_decoder';

export const DEFAULT_MAX_FRAME_BYTES = 16 * 1024 * 1024;

export type FrameWarning =
  | { kind: 'oversize'; bytes: number }
  | { kind: 'invalid_json'; sample: string }
  | { kind: 'not_object'; sample: string };

export interface DecoderHandlers {
  message(value: Record<string, unknown>): void;
  warning(warning: FrameWarning): void;
}

export function encodeFrame(message: object): string {
  return `${JSON.stringify(message)}\n`;
}

export class LineDecoder {
  private readonly decoder = new StringDecoder('utf8');
  private pending = '';
  /** Bytes of an over-long line being skipped until its newline arrives (-1 when not skipping). */
  private skipping = -1;

  constructor(
    private readonly handlers: DecoderHandlers,
    private readonly maxFrameBytes = DEFAULT_MAX_FRAME_BYTES,
  ) {}

  push(chunk: Buffer | string): void {
    const text = typeof chunk === 'string' ? chunk : this.decoder.write(chunk);
    let start = 0;
    let newline = text.indexOf('\n');
    while (newline !== -1) {
      this.finishLine(text.slice(start, newline));
      start = newline + 1;
      newline = text.indexOf('\n', start);
    }
    this.accumulate(text.slice(start));
  }

  /** Flushes a last line that had no trailing newline (the stream ended). */
  end(): void {
    this.finishLine(this.decoder.end());
  }

  private accumulate(part: string): void {
    if (part === '') return;
    if (this.skipping >= 0) {
      this.skipping += Buffer.byteLength(part);
      return;
    }
    this.pending += part;
    // String length bounds the UTF-8 size from below; check bytes only when it could matter.
    if (this.pending.length * 3 > this.maxFrameBytes && Buffer.byteLength(this.pending) > this.maxFrameBytes) {
      this.skipping = Buffer.byteLength(this.pending);
      this.pending = '';
    }
  }

  private finishLine(tail: string): void {
    if (this.skipping >= 0) {
      const bytes = this.skipping + Buffer.byteLength(tail);
      this.skipping = -1;
      this.handlers.warning({ kind: 'oversize', bytes });
      return;
    }
    const line = this.pending === '' ? tail : this.pending + tail;
    this.pending = '';
    if (line.length > this.maxFrameBytes / 3 && Buffer.byteLength(line) > this.maxFrameBytes) {
      this.handlers.warning({ kind: 'oversize', bytes: Buffer.byteLength(line) });
      return;
    }
    const trimmed = line.trim();
    if (trimmed === '') return;
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
    this.handlers.message(value as Record<string, unknown>);
  }
}
