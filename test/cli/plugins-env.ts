// Shared set-up of the plugin tests: a private ROOST_HOME, fixture plugins copied (and reshaped) into
// temporary folders, and installs through the real roost binary.
import { chmod, cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { repoRoot, roost, tempDir, writeTree, type RoostRun } from '../helpers/cli.js';

export const fixturesDir = join(repoRoot, 'test/fixtures/plugins');

export interface PluginHome {
  home: string;
  env: Record<string, string>;
  /** Runs roost with this ROOST_HOME (and extra env). */
  run(args: string[], cwd: string, env?: Record<string, string>): Promise<RoostRun>;
  /** A copy of a fixture plugin; `edit` rewrites its plugin.toml. */
  copyFixture(name: string, edit?: (toml: string) => string): Promise<string>;
  /** Installs a fixture (copied, optionally reshaped) with --yes; asserts it worked. */
  install(name: string, edit?: (toml: string) => string): Promise<RoostRun>;
  /** Writes a plugin folder from `files` (scripts with a #! line made executable) and installs it with --yes. */
  installFiles(name: string, files: Record<string, string>, extraArgs?: string[]): Promise<RoostRun>;
  /** Writes a plugin folder from `files` (as installFiles) without installing it; answers its path. */
  writePlugin(name: string, files: Record<string, string>): Promise<string>;
  cleanup(): Promise<void>;
}

export async function pluginHome(): Promise<PluginHome> {
  const { dir, cleanup } = await tempDir('roost-plugins-');
  const home = join(dir, 'home');
  const env = { ROOST_HOME: home };
  let copies = 0;
  const self: PluginHome = {
    home,
    env,
    run: (args, cwd, extra = {}) => roost(args, { cwd, env: { ...env, ...extra } }),
    async copyFixture(name, edit) {
      const target = join(dir, `fixture-${++copies}-${name}`);
      await cp(join(fixturesDir, name), target, { recursive: true });
      if (edit) {
        const manifest = join(target, 'plugin.toml');
        await writeFile(manifest, edit(await readFile(manifest, 'utf8')));
      }
      return target;
    },
    async install(name, edit) {
      const source = await self.copyFixture(name, edit);
      const result = await self.run(['plugins', 'install', source, '--yes'], dir);
      assert.equal(result.code, 0, `install ${name} failed: ${result.stderr}`);
      return result;
    },
    async writePlugin(name, files) {
      const target = join(dir, `files-${++copies}-${name}`);
      await writeTree(target, files);
      for (const [path, content] of Object.entries(files)) if (content.startsWith('#!')) await chmod(join(target, path), 0o755);
      return target;
    },
    async installFiles(name, files, extraArgs = []) {
      const source = await self.writePlugin(name, files);
      const result = await self.run(['plugins', 'install', source, '--yes', ...extraArgs], dir);
      assert.equal(result.code, 0, `install ${name} failed: ${result.stderr}`);
      return result;
    },
    cleanup,
  };
  return self;
}

/** A manifest edit that renames the plugin and its single command, and sets its capabilities. */
export function reshape(name: string, command: string, capabilities: Record<string, boolean>) {
  return (toml: string) =>
    toml
      .replace(/^name = "cli-plugin-[^"]+"/m, `name = "cli-plugin-${name}"`)
      .replace(/(\[\[commands\]\]\nname = )"[^"]+"/, `$1"${command}"`)
      .replace(/\[capabilities\]\n(?:\w+ = \w+\n)*/, `[capabilities]\n${Object.entries(capabilities).map(([k, v]) => `${k} = ${v}\n`).join('')}`);
}
