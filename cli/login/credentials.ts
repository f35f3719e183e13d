// The server and key `roost login` keeps: the [server] table of $ROOST_HOME/config.toml (other tables
// are left as they are). The file holds a key from then on, so it is written readable by its owner only.
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse, stringify } from 'smol-toml';
import { RoostError } from '../../protocol/errors.js';
import { roostHome } from '../plugins/home.js';

export interface ServerLogin {
  url: string;
  api_key: string;
  tenant_id?: string;
  role?: string;
}

export const configFile = (env: NodeJS.ProcessEnv = process.env) => join(roostHome(env), 'config.toml');

async function readConfig(path: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw err;
  }
  try {
    return parse(text) as Record<string, unknown>;
  } catch (err) {
    throw new RoostError('VALIDATION_ERROR', `${path} is not valid TOML (${(err as Error).message}); fix it before logging in`);
  }
}

export async function savedServer(env: NodeJS.ProcessEnv = process.env): Promise<Partial<ServerLogin>> {
  const server = (await readConfig(configFile(env))).server;
  return typeof server === 'object' && server !== null ? (server as Partial<ServerLogin>) : {};
}

export async function saveLogin(login: ServerLogin, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const path = configFile(env);
  const config = await readConfig(path);
  config.server = login;
  await mkdir(roostHome(env), { recursive: true, mode: 0o700 });
  // Written whole to a private temporary file, then renamed over: never a moment with the key world-readable.
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, stringify(config), { mode: 0o600 });
  await chmod(temporary, 0o600);
  await rename(temporary, path);
  return path;
}
