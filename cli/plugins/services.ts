// The CLI's HostServices: what a plugin command or hook gets when it asks roost for something.
// Capabilities are already checked by PluginProcess before any of these runs.
import { runExec } from '../../kernel/host/exec.js';
import { palette } from '../colour.js';
import type { AskRequest, HostServices, ProgressUpdate } from '../../kernel/host/services.js';
import { RoostError } from '../../protocol/errors.js';
import type { ProjectInfo } from '../../protocol/messages.js';
import type { Question } from '../context.js';
import { metadataReply } from './project-info.js';
import { PluginStore } from './store.js';

export interface CliServicesOptions {
  home: string;
  pluginName: string;
  cwd: string;
  project: ProjectInfo | null;
  /** The plugin's own environment (plugin-env.ts): what metadata key `env` answers. */
  env: Record<string, string | undefined>;
  /** Asks the person (CliContext.ask): takes the default or fails when there is no terminal. */
  ask(question: Question): Promise<string>;
  /** Where `output` text goes: stdout for a command, the log for a hook. */
  output(text: string): void;
  /** A line for the person, on stderr. */
  log(line: string): void;
}

const PROGRESS_INTERVAL_MS = 500;

/** What a plugin's `load` of a key with nothing stored answers, in both dialects (and when denied). */
export const NOTHING_STORED = '';

export function createCliServices(options: CliServicesOptions): HostServices {
  const store = new PluginStore(options.home, options.pluginName);
  let lastProgress = 0;
  return {
    exec: (request) => runExec(request, options.project?.root ?? options.cwd),
    store: (key, value) => store.store(key, value),
    // The seed's reply to load: "value (string, absent or empty when nothing is stored)" — empty here.
    load: async (key) => (await store.load(key)) ?? NOTHING_STORED,
    metadata: (keys) => metadataReply(options.project, options.cwd, keys, options.env),
    ask: (request) => answer(request, options.ask),
    output: (text) => options.output(text),
    log: (level, message) => {
      if (level === 'debug' && !process.env.ROOST_DEBUG) return;
      const paint = palette(process.stderr);
      options.log(level === 'info' ? message : `${(level === 'error' ? paint.red : level === 'warn' ? paint.yellow : paint.dim)(`${level}:`)} ${message}`);
    },
    progress: (update: ProgressUpdate) => {
      const now = Date.now();
      if (!update.done && now - lastProgress < PROGRESS_INTERVAL_MS) return;
      lastProgress = now;
      options.log(describeProgress(options.pluginName, update));
    },
  };
}

async function answer(request: AskRequest, ask: CliServicesOptions['ask']): Promise<unknown> {
  if (request.kind === 'prompt') {
    return ask({ message: request.message, default: request.default === undefined ? undefined : String(request.default) });
  }
  if (request.kind === 'confirm') {
    const def = request.default === undefined ? undefined : request.default === true || /^y(es)?$/i.test(String(request.default)) ? 'y' : 'n';
    return /^y(es)?$/i.test(await ask({ message: `${request.message} (y/n)`, default: def }));
  }
  const options = request.options ?? [];
  if (options.length === 0) throw new RoostError('VALIDATION_ERROR', `${request.kind} needs a non-empty options list`);
  const menu = options.map((o, i) => `  ${i + 1}) ${o}`).join('\n');
  if (request.kind === 'multi_select') return answerMany(request.message, menu, options, (request.default as string[] | undefined) ?? [], ask);
  const def = request.default === undefined ? undefined : String(request.default);
  if (def !== undefined && !options.includes(def)) throw new RoostError('VALIDATION_ERROR', `select default "${def}" is not one of its options`);
  const reply = await ask({ message: `${request.message}\n${menu}\nchoose 1-${options.length}:`, default: def });
  const picked = /^\d+$/.test(reply) ? options[Number(reply) - 1] : options.find((o) => o === reply);
  if (picked === undefined) throw new RoostError('VALIDATION_ERROR', `"${reply}" is not one of the options`);
  return picked;
}

/** Several options, answered by numbers or texts separated by commas; empty takes the defaults. */
async function answerMany(message: string, menu: string, options: string[], defaults: string[], ask: CliServicesOptions['ask']): Promise<string[]> {
  const def = defaults.map((d) => String(options.indexOf(d) + 1)).join(',');
  const reply = await ask({ message: `${message}\n${menu}\nchoose any of 1-${options.length}, separated by commas:`, default: def });
  if (reply.trim() === '') return defaults;
  return reply.split(',').map((part) => {
    const word = part.trim();
    const picked = /^\d+$/.test(word) ? options[Number(word) - 1] : options.find((o) => o === word);
    if (picked === undefined) throw new RoostError('VALIDATION_ERROR', `"${word}" is not one of the options`);
    return picked;
  });
}

function describeProgress(plugin: string, update: ProgressUpdate): string {
  const count = update.total ? ` ${update.current ?? 0}/${update.total}` : update.current !== undefined ? ` ${update.current}` : '';
  return `[${plugin}] ${update.message ?? 'working'}${count}${update.done ? ' (done)' : ''}`;
}
