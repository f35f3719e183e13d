// A plugin's key/value store (cli-v1 store/load): $ROOST_HOME/plugin-data/<name>.json, outside the
// plugin's checkout so a reinstall or an update keeps it. Writes are atomic and serialised per file.
import { readFile } from 'node:fs/promises';
import { RoostError } from '../../protocol/errors.js';
import { writeJsonAtomic } from './atomic.js';
import { pluginDataFile } from './home.js';

/** A plugin's whole store stays small enough to rewrite on every change. */
export const STORE_LIMIT_BYTES = 16 * 1024 * 1024;

export class PluginStore {
  private readonly file: string;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(home: string, pluginName: string) {
    this.file = pluginDataFile(home, pluginName);
  }

  async load(key: string): Promise<string | null> {
    await this.queue;
    const values = await this.read();
    return Object.hasOwn(values, key) ? values[key]! : null;
  }

  store(key: string, value: string): Promise<void> {
    const next = this.queue.then(async () => {
      const values = await this.read();
      values[key] = value;
      const size = Buffer.byteLength(JSON.stringify(values));
      if (size > STORE_LIMIT_BYTES) {
        throw new RoostError('PAYLOAD_TOO_LARGE', `the store would grow to ${size} bytes; a plugin may keep at most ${STORE_LIMIT_BYTES}`);
      }
      await writeJsonAtomic(this.file, values);
    });
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async read(): Promise<Record<string, string>> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw err;
    }
    try {
      const data = JSON.parse(text) as unknown;
      if (data && typeof data === 'object' && !Array.isArray(data)) return data as Record<string, string>;
    } catch {
      // fall through to the error below
    }
    throw new RoostError('INTERNAL', `${this.file} is damaged; remove it to reset this plugin's stored values`);
  }
}
