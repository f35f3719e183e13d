// NDJSON framing: one compact JSON object per line. The decoder never throws on bad input: a line
// that does not parse, is not an object, grows past the frame limit or past the JSON limits (nesting
// depth above all) is dropped with a warning.
import { frameJsonLimits, scanJsonLimits } from './json-limits.js';

export const DEFAULT_MAX_FRAME_BYTES = 16 * 1024 * 1024;
const NEWLINE = 0x0a;

export type FrameWarning =
  | { kind: 'oversize'; bytes: number }
  | { kind: 'invalid_json'; sample: string }
  | { kind: 'not_object'; sample: string }
  | { kind: 'over_limit'; reason: string; sample: string };

export interface DecoderHandlers {
  message(value: Record<string, unknown>): void;
  warning(warning: FrameWarning): void;
}

export function encodeFrame(message: object): string {
  return `${JSON.stringify(message)}\n`;
}

export class LineDecoder {
  /** The bytes of the current line so far. Lines are cut on the newline byte, which never occurs inside a
   * multi-byte UTF-8 character, and decoded whole, so a character split across chunks is never broken. */
  private parts: Buffer[] = [];
  private size = 0;
  /** True while the rest of an over-long line is counted and dropped until its newline arrives. */
  private skipping = false;

  constructor(
    private readonly handlers: DecoderHandlers,
    private readonly maxFrameBytes = DEFAULT_MAX_FRAME_BYTES,
  ) {}

  push(chunk: Buffer | string): void {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    let start = 0;
    let newline = bytes.indexOf(NEWLINE);
    while (newline !== -1) {
      this.take(bytes.subarray(start, newline));
      this.finishLine();
      start = newline + 1;
      newline = bytes.indexOf(NEWLINE, start);
    }
    this.take(bytes.subarray(start));
  }

  /** Flushes a last line that had no trailing newline (the stream ended). */
  end(): void {
    this.finishLine();
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
    this.handlers.message(value as Record<string, unknown>);
  }
}
