// Runs one plugin executable (a command, a hook or a lane step) in its sandbox and waits for it: a
// cli-v1 or fledge-v1 plugin through the shared PluginProcess, a plain one with its arguments in argv.
// Ctrl-C sends `cancel` (SIGTERM 5 s later, SIGKILL 10 s later); an optional time limit does the same.
// A protocol plugin that answers and then exits non-zero without an error (a linter's findings) has
// given its verdict: roost adds no "exited with code" line, which would read like a crash.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { constants } from 'node:os';
import { PluginProcess } from '../../kernel/host/plugin-process.js';
import { RoostError } from '../../protocol/errors.js';
import { PROTOCOL, type ProjectInfo } from '../../protocol/messages.js';
import { packageRoot, runnableEntry } from '../../lib/paths.js';
import type { Question } from '../context.js';
import { projectInfo } from './project-info.js';
import { entryManifest, withSandboxGrant, type RegistryEntry } from './registry.js';
import { pluginEnv } from './plugin-env.js';
import { startPlain, type RunningPlugin } from './run-plain.js';
import { pluginBox, type PluginBox } from './sandbox.js';
import { NOTHING_STORED, createCliServices } from './services.js';

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
  /** Extra environment for the child (ROOST_HOOK for hooks), beyond its allow-list (plugin-env.ts). */
  env?: Record<string, string>;
  /** init.command: the manifest command being run (absent for hooks). */
  command?: string;
  /** Stops the plugin as Ctrl-C would (a lane being interrupted); without it, roost's own SIGINT does. */
  signal?: AbortSignal;
  /** A plain plugin gets roost's terminal (a command run by a person); otherwise its output lines go to `output`. */
  passThrough?: boolean;
}

export interface RunOutcome {
  code: number;
  /** Why roost ended the plugin, when it did. */
  stopped?: 'interrupted' | 'timeout';
}

const hostVersion = (JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version: string }).version;

export async function runPlugin(recorded: RegistryEntry, binary: string, options: RunPluginOptions): Promise<RunOutcome> {
  const entry = await withSandboxGrant(recorded);
  const file = runnableEntry(join(entry.dir, binary));
  if (!existsSync(file)) {
    throw new RoostError('NOT_FOUND', `${entry.name}: ${binary} is missing from ${entry.dir}; reinstall the plugin`);
  }
  const protocol = entry.protocol ?? PROTOCOL;
  const env = pluginEnv(entry, process.env, options.env);
  const project = await projectInfo(options.cwd, entry.capabilities.includes('metadata'));
  const box = await pluginBox(entry, options.home, project?.root ?? options.cwd, options.cwd, env, options.log);
  const said: Said = { answered: false, complained: false };
  const plugin = protocol === 'plain'
    ? startPlain(file, options.args, { cwd: options.cwd, env: box.env, wrapper: box.wrapper, passThrough: options.passThrough ?? false, onLine: (line) => options.output(`${line}\n`) })
    : startProtocol(entry, binary, options, project, box, said);

  let stopped: RunOutcome['stopped'];
  const stop = (why: NonNullable<RunOutcome['stopped']>, message: string) => {
    if (stopped) return plugin.kill(); // asked twice: no more grace
    stopped = why;
    options.log(`roost: ${message}; asking ${entry.name} to stop`);
    plugin.cancel(message, why);
  };
  const onSigint = () => stop('interrupted', 'interrupted');
  if (options.signal) options.signal.addEventListener('abort', onSigint, { once: true });
  else process.on('SIGINT', onSigint);
  const timer = options.timeoutMs ? setTimeout(() => stop('timeout', `${entry.name} ran past ${options.timeoutMs! / 1000} s`), options.timeoutMs) : undefined;
  try {
    const exit = await plugin.exited;
    if (stopped) return { code: stopped === 'interrupted' ? 130 : 124, stopped };
    const signal = exit.signal ?? (box.wrapper ? signalOfSandboxExit(exit.code) : null);
    if (signal) {
      options.log(`roost: ${entry.name} was killed by ${signal}`);
      return { code: 128 + (constants.signals[signal as NodeJS.Signals] ?? 0) };
    }
    if (exit.code === null) {
      options.log(`roost: could not start ${file} (is it executable, with a #! line?)`);
      return { code: 126 };
    }
    const verdict = protocol !== 'plain' && said.answered && !said.complained;
    if (exit.code !== 0 && !verdict) options.log(`roost: ${entry.name} exited with code ${exit.code}`);
    return { code: exit.code };
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onSigint);
    process.off('SIGINT', onSigint);
  }
}

/** What a protocol plugin said before it ended: output (an answer), and an error log or stderr (a complaint). */
interface Said {
  answered: boolean;
  complained: boolean;
}

/** A cli-v1 or fledge-v1 plugin, through the host every plugin and extension shares. */
function startProtocol(entry: RegistryEntry, binary: string, options: RunPluginOptions, project: ProjectInfo | null, box: PluginBox, said: Said): RunningPlugin {
  const output = (text: string) => {
    said.answered = true;
    options.output(text);
  };
  const cli = createCliServices({ home: options.home, pluginName: entry.name, cwd: options.cwd, project, env: box.env, ask: options.ask, output, log: options.log });
  const services: typeof cli = {
    ...cli,
    log: (level, message) => {
      if (level === 'error') said.complained = true;
      cli.log(level, message);
    },
  };
  const plugin = new PluginProcess({
    manifest: entryManifest(entry),
    entry: binary,
    grants: new Set(entry.capabilities),
    services,
    nothingStored: NOTHING_STORED,
    init: { args: options.args, project, host: { name: 'roost', version: hostVersion }, ...(options.command ? { command: options.command } : {}) },
    cwd: options.cwd,
    env: box.env,
    wrapper: box.wrapper,
    onStderr: (line) => {
      said.complained = true;
      options.log(line);
    },
  });
  return {
    exited: plugin.child.exited,
    cancel: (reason, cause) => void plugin.cancel(reason, cause),
    kill: () => plugin.child.signal('SIGKILL'),
  };
}

/** bwrap reports its command's death by a signal as the exit code 128 + n, the way a shell does. */
function signalOfSandboxExit(code: number | null): string | null {
  if (code === null || code <= 128) return null;
  return Object.entries(constants.signals).find(([, n]) => n === code - 128)?.[0] ?? null;
}
