// Where the CLI keeps installed plugins and their data: $ROOST_HOME (default ~/.roost).
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

export function roostHome(env: NodeJS.ProcessEnv = process.env): string {
  return resolve(env.ROOST_HOME && env.ROOST_HOME !== '' ? env.ROOST_HOME : join(homedir(), '.roost'));
}

export const pluginsDir = (home: string) => join(home, 'plugins');
export const registryFile = (home: string) => join(pluginsDir(home), 'registry.json');
export const pluginDataFile = (home: string, name: string) => join(home, 'plugin-data', `${name}.json`);
