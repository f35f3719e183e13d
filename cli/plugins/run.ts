// Runs one plugin executable (a command or a hook) through the shared PluginProcess and waits for it.
// Ctrl-C sends `cancel` (SIGTERM 5 s later, SIGKILL 10 s later); an optional time limit does the same.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { constants } from 'node:os';
import { PluginProcess } from '../../kernel/host/plugin-process.js';
import { RoostError } from '../../protocol/errors.js';
import { packageRoot, runnableEntry } from '../../protocol/paths.js';
import type { Question } from '../context.js';
import { projectInfo } from './project-info.js';
import { entryManifest, type RegistryEntry } from './registry.js';
import { createCliServices } from './services.js';

export interface RunPluginOptions {
  home: string;
  cwd: string;
  /** init.args */
  args: string[];
  ask(question: Question): Promise<string>;
  output(text: string): void;
  log(line: string): void;
  /** Cancel the plugin after this long (0: no limit). */
  timeoutMs?: number;
  /** Extra environment for the child (ROOST_HOOK for hooks). */
  env?: Record<string, string>;
}

export interface RunOutcome {
  code: number;
  /** Why roost ended the plugin, when it did. */
  stopped?: 'interrupted' | 'timeout';
}

const hostVersion = (JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version: string }).version;

export async function runPlugin(entry: RegistryEntry, binary: string, options: RunPluginOptions): Promise<RunOutcome> {
  const file = runnableEntry(join(entry.dir, binary));
  if (!existsSync(file)) {
    throw new RoostError('NOT_FOUND', `${entry.name}: ${binary} is missing from ${entry.dir}; reinstall the plugin`);
  }
  const project = await projectInfo(options.cwd);
  const services = createCliServices({ home: options.home, pluginName: entry.name, cwd: options.cwd, project, ask: options.ask, output: options.output, log: options.log });
  const plugin = new PluginProcess({
    manifest: entryManifest(entry),
    entry: binary,
    grants: new Set(entry.capabilities),
    services,
    init: { args: options.args, project, host: { name: 'roost', version: hostVersion } },
    cwd: options.cwd,
    env: { ...process.env, ROOST_PLUGIN: entry.name, ...options.env },
    onStderr: (line) => options.log(line),
  });

  let stopped: RunOutcome['stopped'];
  const stop = (why: NonNullable<RunOutcome['stopped']>, message: string) => {
    if (stopped) return plugin.child.signal('SIGKILL'); // asked twice: no more grace
    stopped = why;
    options.log(`roost: ${message}; asking ${entry.name} to stop`);
    void plugin.cancel(message);
  };
  const onSigint = () => stop('interrupted', 'interrupted');
  process.on('SIGINT', onSigint);
  const timer = options.timeoutMs ? setTimeout(() => stop('timeout', `${entry.name} ran past ${options.timeoutMs! / 1000} s`), options.timeoutMs) : undefined;
  try {
    const exit = await plugin.child.exited;
    if (stopped) return { code: stopped === 'interrupted' ? 130 : 124, stopped };
    if (exit.signal) {
      options.log(`roost: ${entry.name} was killed by ${exit.signal}`);
      return { code: 128 + (constants.signals[exit.signal as NodeJS.Signals] ?? 0) };
    }
    if (exit.code === null) {
      options.log(`roost: could not start ${file} (is it executable, with a #! line?)`);
      return { code: 126 };
    }
    if (exit.code !== 0) options.log(`roost: ${entry.name} exited with code ${exit.code}`);
    return { code: exit.code };
  } finally {
    clearTimeout(timer);
    process.off('SIGINT', onSigint);
  }
}
