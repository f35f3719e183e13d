// The built-in command tree. Each entry is a lightweight description; its module is imported only
// when the command runs, so `roost --version` loads nothing but this table and cac.
import type { CliContext } from './context.js';
import type { CommandResult } from './output.js';

export interface CommandInput {
  /** Positional arguments after the command name. */
  args: string[];
  /** Parsed flags, camelCased by cac (`--dry-run` → dryRun). */
  options: Record<string, unknown>;
  /** Everything after a literal `--`. */
  rest: string[];
}

export type CommandHandler = (input: CommandInput, ctx: CliContext) => Promise<CommandResult>;

export interface CommandSpec {
  /** One or more words: "run", "lanes run". */
  name: string;
  /** cac argument syntax: "<lane>", "[task]". */
  args?: string;
  description: string;
  options?: Array<[flags: string, description: string, config?: { default?: unknown; type?: unknown[] }]>;
  /** Imports the module that does the work. */
  load: () => Promise<CommandHandler>;
}

export const builtinCommands: CommandSpec[] = [
  {
    name: 'serve',
    description: 'Start the agent orchestration server (HTTP, WebSocket and MCP on one port)',
    options: [
      ['--port <port>', 'Port (env ROOST_PORT, default 3000)'],
      ['--host <host>', 'Address to bind (env ROOST_HOST, default 127.0.0.1)'],
      ['--data-dir <dir>', 'Data directory (env ROOST_DATA_DIR, default ~/.roost/data)'],
    ],
    load: async () => (await import('./commands/serve.js')).serve,
  },
];
