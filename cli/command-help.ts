// What roost says when argv names no command: a command group alone (`roost lanes`) lists its
// sub-commands; anything else is a usage error with the closest command name as a suggestion.
import { usageError, type CommandResult } from './output.js';
import { didYouMean } from './suggest.js';
import type { CommandSpec } from './tree.js';

export async function explainUnmatched(words: string[], specs: CommandSpec[]): Promise<CommandResult> {
  const [first = '', second] = words;
  const group = specs.filter((s) => s.name.startsWith(`${first} `));
  if (group.length > 0 && second === undefined) {
    const subcommands = group.map((s) => ({ name: s.name, usage: `roost ${s.name}${s.args ? ` ${s.args}` : ''}`, description: s.description }));
    const width = Math.max(...subcommands.map((s) => s.usage.length));
    const text = [`roost ${first} has these commands:`, ...subcommands.map((s) => `  ${s.usage.padEnd(width)}  ${s.description}`), '', `For more, roost ${first} <command> --help`].join('\n');
    return { data: { command: first, subcommands }, text };
  }
  if (group.length > 0) {
    const names = group.map((s) => s.name.split(' ')[1]!);
    throw usageError(`unknown command "${first} ${second}"${didYouMean(second!, names)}; roost ${first} has: ${names.join(', ')}`);
  }
  const known = [...specs.map((s) => s.name.split(' ')[0]!), ...(await pluginWords())];
  throw usageError(`unknown command "${words.join(' ')}"${didYouMean(first, known)}; see roost --help`);
}

/** First words of the installed plugins' commands; none when the registry cannot be read. */
async function pluginWords(): Promise<string[]> {
  try {
    const { pluginCommandSpecs } = await import('./plugins/commands.js');
    return (await pluginCommandSpecs()).map((s) => s.name.split(' ')[0]!);
  } catch {
    return [];
  }
}

/** The "Plugin commands" section of `roost --help`; a registry that cannot be read adds nothing. */
export async function pluginHelpSection(): Promise<{ title: string; body: string } | undefined> {
  try {
    const { pluginCommandSpecs } = await import('./plugins/commands.js');
    const specs = await pluginCommandSpecs();
    if (specs.length === 0) return undefined;
    const width = Math.max(...specs.map((s) => s.name.length));
    return { title: 'Plugin commands', body: specs.map((s) => `  ${s.name.padEnd(width)}  ${s.description} (${s.source})`).join('\n') };
  } catch {
    return undefined;
  }
}
