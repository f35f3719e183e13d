// Limits on the shape of JSON text, checked in one pass over the raw text before anything parses or
// walks it: nesting depth, members (object keys plus array items, counted over the whole document)
// and the length of any one string. Deep nesting is the dangerous one: JSON.parse copes, but every
// later step that recurses (re-encoding, schema checks, copies) can overflow the stack.
// The scan does not validate the syntax (JSON.parse does that next); malformed text only ends it early.
import { RoostError } from './errors.js';

export interface JsonLimits {
  maxDepth: number;
  maxMembers: number;
  /** Characters between a string's quotes as written (escapes count as written). */
  maxString: number;
}

/** For bodies and messages from outside: REST bodies, WebSocket frames, /mcp requests. */
export const EDGE_JSON_LIMITS: JsonLimits = { maxDepth: 64, maxMembers: 100_000, maxString: 1024 * 1024 };

/**
 * For protocol frames between the kernel and its extensions. The depth allows twice the edge depth,
 * because a frame wraps what came from outside (a request's body sits inside the request message, a
 * reply's body inside the response) and an accepted body must always fit. Members and strings are
 * bounded by the frame size alone.
 */
export function frameJsonLimits(maxFrameBytes: number): JsonLimits {
  return { maxDepth: 2 * EDGE_JSON_LIMITS.maxDepth, maxMembers: maxFrameBytes, maxString: maxFrameBytes };
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const OPEN_ARRAY = 0x5b;
const CLOSE_OBJECT = 0x7d;
const CLOSE_ARRAY = 0x5d;

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** Returns a sentence naming the first limit the text goes past, or undefined when it keeps to them all. */
export function scanJsonLimits(text: string, limits: JsonLimits): string | undefined {
  let depth = 0;
  let members = 0;
  /** Just after an opening bracket: the next token is the container's first member, unless it closes it. */
  let opened = false;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    if (isSpace(c)) continue;
    if (opened) {
      opened = false;
      if (c !== CLOSE_OBJECT && c !== CLOSE_ARRAY && ++members > limits.maxMembers) return `the JSON has more than ${limits.maxMembers} members (keys and array items)`;
    }
    if (c === QUOTE) {
      const end = closingQuote(text, i + 1);
      if (end - i - 1 > limits.maxString) return `a JSON string is longer than ${limits.maxString} characters`;
      i = end;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (++depth > limits.maxDepth) return `the JSON is nested deeper than ${limits.maxDepth} levels`;
      opened = true;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      depth--;
    } else if (c === COMMA) {
      if (++members > limits.maxMembers) return `the JSON has more than ${limits.maxMembers} members (keys and array items)`;
    }
  }
  return undefined;
}

/** The index of the quote that closes a string opened just before `from` (the text's length if none does). */
function closingQuote(text: string, from: number): number {
  for (let at = text.indexOf('"', from); at !== -1; at = text.indexOf('"', at + 1)) {
    let backslashes = 0;
    while (text.charCodeAt(at - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return at;
  }
  return text.length;
}

/** Throws 400 VALIDATION_ERROR naming the limit when the text goes past one. */
export function checkJsonLimits(text: string, limits: JsonLimits = EDGE_JSON_LIMITS): void {
  const problem = scanJsonLimits(text, limits);
  if (problem) throw new RoostError('VALIDATION_ERROR', problem);
}
