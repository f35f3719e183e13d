// The roost command (started by cli/bin.ts). Kept small on purpose: a command word no built-in owns goes
// to the plugin commands, anything else to cac and the built-in tree; each imports its module only then.
import { builtinCommands, type CommandSpec } from './tree.js';

export async function main(argv: string[]): Promise<number> {
  const specs = builtinCommands;
  // Only roost's own flags count: `roost run test -- --json` hands --json to the task.
  const dashDash = argv.indexOf('--');
  const json = (dashDash === -1 ? argv : argv.slice(0, dashDash)).includes('--json');
  const pluginExit = await runPluginCommand(argv, specs, json);
  if (pluginExit !== undefined) return pluginExit;
  const { runBuiltinCommand } = await import('./builtin-command.js');
  return runBuiltinCommand(argv, specs, json);
}

/**
 * A command word that no built-in owns may belong to a plugin: only then is the plugin registry read,
 * so built-ins and `roost --version` start without touching it. The plugin gets its arguments raw.
 */
async function runPluginCommand(argv: string[], specs: CommandSpec[], json: boolean): Promise<number | undefined> {
  const words = argv.slice(2);
  const end = words.indexOf('--') === -1 ? words.length : words.indexOf('--');
  const first = words.slice(0, end).find((w) => !w.startsWith('-'));
  if (first === undefined || specs.some((s) => s.name.split(' ')[0] === first)) return undefined;
  const { runPluginCommand: run } = await pluginCommandModule();
  return run(words, json);
}

/**
 * The plugin commands' module: beside the bundle, one CommonJS file the build gave a V8 code cache
 * (Node 20 keeps none for an ES module: ~10 ms of a plugin command's start); beside the compiled
 * modules, or under tsx, the module itself (by URL, so the bundler does not split it into chunks).
 */
async function pluginCommandModule(): Promise<typeof import('./plugin-command.js')> {
  const [{ existsSync }, { createRequire }] = await Promise.all([import('node:fs'), import('node:module')]);
  if (existsSync(new URL('./plugin-command.cjs', import.meta.url))) return createRequire(import.meta.url)('./plugin-command.cjs') as typeof import('./plugin-command.js');
  return import(new URL('./plugin-command.js', import.meta.url).href);
}

// Not a top-level await: `roost serve` also runs as a CommonJS bundle with a code cache (cli/bin.ts).
void main(process.argv).then((code) => {
  process.exitCode = code;
});
