// The key that extensions seal stored secrets with (credentials, memories, notes): one master key per
// deployment, from ROOST_SEALING_KEY or else a file in the data dir created on the first start. It is
// never in a database, so a copy of the database files alone reveals nothing sealed. Each extension
// gets its own key derived from it (HKDF-SHA256, info "roost extension:<name>"): one extension's key
// opens nothing of another's.
import { hkdfSync, randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { validationError } from '../../protocol/errors.js';

export const SEALING_KEY_FILE = 'sealing.key';
/** What an extension passes to `secret` to get its own sealing key (64 hex digits). */
export const EXTENSION_KEY_SECRET = 'ROOST_EXTENSION_KEY';

export async function loadSealingKey(fromEnv: string | undefined, dataDir: string): Promise<Buffer> {
  if (fromEnv !== undefined && fromEnv !== '') return parseKey(fromEnv, 'ROOST_SEALING_KEY');
  const file = join(dataDir, SEALING_KEY_FILE);
  const existing = await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => (err.code === 'ENOENT' ? undefined : Promise.reject(err)));
  if (existing !== undefined) return parseKey(existing.trim(), file);
  const key = randomBytes(32);
  // wx: two instances starting on one data dir at once keep the first key, never one each.
  await writeFile(file, `${key.toString('hex')}\n`, { mode: 0o600, flag: 'wx' }).catch(async (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EEXIST') throw err;
  });
  return parseKey((await readFile(file, 'utf8')).trim(), file);
}

export function extensionKey(master: Buffer, extension: string): string {
  return Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), `roost extension:${extension}`, 32)).toString('hex');
}

function parseKey(text: string, where: string): Buffer {
  const key = /^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64');
  if (key.length !== 32 || !/^[A-Za-z0-9+/=]+$/.test(text)) throw validationError(`${where} must be 32 bytes as 64 hex digits or base64, got ${text.length} characters`);
  return key;
}
