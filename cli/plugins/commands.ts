// Plugin commands in the command tree: matching argv against the registry, running the match, and
// the CommandSpec list that `introspect` (and lanes steps) see.
import { RoostError } from '../../protocol/errors.js';
import { createContext, type CliContext } from '../context.js';
import type { CommandSpec } from '../tree.js';
import { roostHome } from './home.js';
import { readRegistry, type PluginCommand, type Registry, type RegistryEntry } from './registry.js';
import { runPlugin } from './run.js';

export interface PluginMatch {
  entry: RegistryEntry;
  command: PluginCommand;
  /** argv after the command's words: init.args */
  args: string[];
}

/** The plugin command named by the leading words of argv (longest name wins). */
export function matchPluginCommand(registry: Registry, words: string[]): PluginMatch | undefined {
  let best: PluginMatch | undefined;
  for (const entry of registry.plugins) {
    for (const command of entry.commands) {
      const parts = command.name.split(' ');
      if (parts.every((part, i) => words[i] === part) && (!best || parts.length > best.command.name.split(' ').length)) {
        best = { entry, command, args: words.slice(parts.length) };
      }
    }
  }
  return best;
}

/** Host flags roost reads itself wherever they appear before `--`; everything else goes to the plugin. */
const HOST_FLAGS = new Set(['--non-interactive']);

/**
 * Runs `roost <plugin command> [args]` from raw argv words (without node and the script). Resolves with
 * the exit code, or undefined when no installed plugin provides the command.
 */
export async function dispatchPluginCommand(words: string[], home = roostHome()): Promise<number | undefined> {
  const end = words.indexOf('--') === -1 ? words.length : words.indexOf('--');
  const nonInteractive = words.slice(0, end).includes('--non-interactive');
  const kept = words.filter((w, i) => i >= end || !HOST_FLAGS.has(w));
  // --json may come before the command name (roost --json deps); the plugin still gets it.
  const leading = kept.findIndex((w) => !w.startsWith('-'));
  if (leading === -1) return undefined;
  const registry = await readRegistry(home);
  const match = matchPluginCommand(registry, kept.slice(leading));
  if (!match) return undefined;
  const ctx = createContext({ json: kept.includes('--json'), nonInteractive });
  return runCommand(match.entry, match.command, [...kept.slice(0, leading), ...match.args], ctx, home);
}

function runCommand(entry: RegistryEntry, command: PluginCommand, args: string[], ctx: CliContext, home: string): Promise<number> {
  const timeoutS = Number(process.env.ROOST_PLUGIN_TIMEOUT ?? 0);
  if (!Number.isFinite(timeoutS) || timeoutS < 0) throw new RoostError('USAGE', 'ROOST_PLUGIN_TIMEOUT must be a number of seconds');
  return runPlugin(entry, command.binary, {
    home,
    cwd: ctx.cwd,
    args,
    ask: ctx.ask,
    output: (text) => process.stdout.write(text), // as is: the plugin owns its line breaks
    log: ctx.log,
    timeoutMs: timeoutS * 1000,
    command: command.name,
    passThrough: true,
  }).then((outcome) => outcome.code);
}

/** Every installed plugin command as a CommandSpec (name, description, where it comes from, a runner). */
export async function pluginCommandSpecs(home = roostHome()): Promise<CommandSpec[]> {
  const registry = await readRegistry(home);
  return registry.plugins.flatMap((entry) =>
    entry.commands.map((command): CommandSpec => ({
      name: command.name,
      args: '[...args]',
      description: command.description || `${entry.name} ${command.name}`,
      source: entry.name,
      load: async () => async (input, ctx) => {
        const args = [...input.args, ...(input.rest.length > 0 ? ['--', ...input.rest] : [])];
        const code = await runCommand(entry, command, args, ctx, home);
        return { data: { plugin: entry.name, command: command.name, exitCode: code }, exitCode: code };
      },
    })),
  );
}
