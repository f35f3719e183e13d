// A plugin command run from the command line, errors printed here. `npm run build` bundles this module
// into one CommonJS file of its own with a V8 code cache (dist/bundles/cli/plugin-command.cjs), which
// main.ts requires: a plugin command then loads one file, compiled before, where the chunks it would
// share with the built-in commands would be some twenty, and each file costs more to load than its code
// takes to run (docs/cli.md, Performance).
import { printError } from './output.js';
import { dispatchPluginCommand } from './plugins/commands.js';

/** The plugin command's exit code, or undefined when no installed plugin provides the command. */
export async function runPluginCommand(words: string[], json: boolean): Promise<number | undefined> {
  try {
    return await dispatchPluginCommand(words);
  } catch (err) {
    return printError(err, json);
  }
}
