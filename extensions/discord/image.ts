// An image an agent sends: base64 (or a data: URL) or an http(s) URL fetched here, at most 8 MiB, and
// it must really be a PNG, JPEG, GIF or WebP (told by its first bytes, not by what it claims). A URL is
// fetched within the agent's tenant's reach (the one rule of sdk/reach.ts), so an agent
// cannot make the bridge fetch internal pages.
import { RoostError, validationError } from '../../protocol/errors.js';
import { parseHttpUrl, request, type Reach } from '../../sdk/outbound.js';
import type { FileUpload } from './rest.js';

const MAX_BYTES = 8 * 1024 * 1024;
const FETCH_TIMEOUT_MS = 20_000;

const KINDS: Array<{ type: string; ext: string; test: (b: Buffer) => boolean }> = [
  { type: 'image/png', ext: 'png', test: (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) },
  { type: 'image/jpeg', ext: 'jpg', test: (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff },
  { type: 'image/gif', ext: 'gif', test: (b) => b.subarray(0, 4).toString('latin1') === 'GIF8' },
  { type: 'image/webp', ext: 'webp', test: (b) => b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP' },
];

export async function loadImage(image: string, reachOf: (url: URL) => Reach): Promise<FileUpload> {
  const data = /^https?:\/\//i.test(image) ? await fetchImage(image, reachOf) : decode(image);
  if (data.length === 0) throw validationError('the image is empty');
  if (data.length > MAX_BYTES) throw new RoostError('PAYLOAD_TOO_LARGE', `the image is larger than ${MAX_BYTES} bytes`);
  const kind = KINDS.find((k) => k.test(data));
  if (!kind) throw validationError('the image is not a PNG, JPEG, GIF or WebP');
  return { name: `image.${kind.ext}`, contentType: kind.type, data };
}

function decode(image: string): Buffer {
  const base64 = image.replace(/^data:image\/[a-z+.-]+;base64,/i, '').replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(base64)) throw validationError('image must be base64 data or an http(s) URL');
  return Buffer.from(base64, 'base64');
}

async function fetchImage(raw: string, reachOf: (url: URL) => Reach): Promise<Buffer> {
  const url = parseHttpUrl(raw, 'image');
  const reply = await request({ method: 'GET', url, timeoutMs: FETCH_TIMEOUT_MS, maxBytes: MAX_BYTES, reach: reachOf(url), read: 'bytes' });
  if (reply.status !== 200) throw new RoostError('UPSTREAM_ERROR', `fetching the image answered ${reply.status}`);
  return reply.body as Buffer;
}
