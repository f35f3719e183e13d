// The body of a request to an extension route, read as bytes and forwarded as they came: the kernel
// never parses (nor re-encodes) a body it only passes on. Size is checked while reading.
import getRawBody from 'raw-body';
import { RoostError } from '../../protocol/errors.js';
import type { IncomingMessage } from 'node:http';

/** True when the request announces a body (a length over zero, or a chunked transfer). */
export function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined;
}

/** Bodies already read (the Idempotency-Key check reads one before its route does). */
const bodies = new WeakMap<IncomingMessage, Buffer>();

export async function readRawBody(req: IncomingMessage, limitBytes: number): Promise<Buffer> {
  const read = bodies.get(req);
  if (read) return read;
  try {
    const body = await getRawBody(req, { limit: limitBytes });
    bodies.set(req, body);
    return body;
  } catch (err) {
    const type = (err as { type?: string }).type;
    if (type === 'entity.too.large') throw new RoostError('PAYLOAD_TOO_LARGE', `the body is larger than ${limitBytes} bytes`);
    throw new RoostError('VALIDATION_ERROR', `the body could not be read: ${(err as Error).message}`);
  }
}
