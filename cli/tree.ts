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
  /** Environment variables the command reads, listed by its --help. */
  environment?: Array<[name: string, description: string]>;
  /** Imports the module that does the work. */
  load: () => Promise<CommandHandler>;
  /** "builtin", or the plugin that contributes the command. */
  source?: string;
}

/** Flags every command accepts (cac adds --help and --version). */
export const GLOBAL_OPTIONS: Array<[flags: string, description: string]> = [
  ['--json', 'Print exactly one JSON document on stdout'],
  ['--non-interactive', 'Never ask a question: take the default or fail naming the flag'],
];

/** Every command roost knows — bin.ts parses with it and `introspect` prints it; plugin commands join here. */
export async function allCommandSpecs(): Promise<CommandSpec[]> {
  const { pluginCommandSpecs } = await import('./plugins/commands.js');
  return [...builtinCommands, ...(await pluginCommandSpecs())];
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
    environment: [
      ['ROOST_API_KEY', "the instance owner's key; needed by remote callers (and local ones with ROOST_LOCAL_AUTH=required)"],
      ['ROOST_ALLOWED_ROOTS', 'folders projects may live in (comma separated; default: home, this folder and the temp folder for the owner, <data>/workspaces/<tenant> for other tenants)'],
      ['ROOST_ALLOWED_ORIGINS', 'browser origins allowed to call the server (CORS); none by default'],
      ['ROOST_DATABASE_URL', 'postgres://… to use PostgreSQL instead of the embedded SQLite'],
      ['ROOST_EXTENSION_DIRS', 'more folders of extensions'],
      ['ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL', 'the hosted model provider'],
      ['OLLAMA_HOST', 'the local model runner (default http://127.0.0.1:11434)'],
    ],
    load: async () => (await import('./commands/serve.js')).serve,
  },
  // run, lanes, work, introspect
  {
    name: 'run', args: '[task]', description: 'Run a built-in task of the detected stack (no task: list them); extra args after --',
    options: [
      ['--dry-run', 'Show the command without running it'],
      ['--stack <id>', 'Take the task from this stack (rust, node, go, python, ruby, java, swift)'],
      ['--workspace <package>', 'Run the task in one package of the JavaScript workspace (its name or folder)'],
      ['--workspaces', 'Run the task in every workspace package that has it, in dependency order'],
    ],
    load: async () => (await import('./commands/run.js')).handler,
  },
  {
    name: 'lanes run', args: '<lane>', description: 'Run a lane from lanes.toml',
    options: [['--dry-run', 'Show the plan without running anything']],
    load: async () => (await import('./commands/lanes-run.js')).handler,
  },
  { name: 'lanes list', description: 'List the lanes (local and imported)', load: async () => (await import('./commands/lanes-list.js')).handler },
  {
    name: 'lanes create', args: '<name>', description: 'Create a lanes repository: a git repo with lanes.toml and a README',
    load: async () => (await import('./commands/lanes-create.js')).handler,
  },
  {
    name: 'lanes publish', description: 'Push the lanes repository in this directory to its origin (never forced)',
    load: async () => (await import('./commands/lanes-publish.js')).handler,
  },
  {
    name: 'lanes import', args: '<repository>', description: 'Import shared lanes from <org>/<repo> on ROOST_GIT_HOST',
    load: async () => (await import('./commands/lanes-import.js')).handler,
  },
  {
    name: 'work start', args: '[name]', description: 'Create the branch <author>/<kind>/<name> and push it with upstream',
    options: [['--issue <number>', 'Issue number, prefixed to the branch name; with GITHUB_TOKEN its title names the branch when no name is given and becomes the commit template, and work push opens the pull request closing it'], ['--kind <kind>', 'Kind segment of the branch', { default: 'feat' }]],
    load: async () => (await import('./commands/work-start.js')).handler,
  },
  {
    name: 'work push', description: 'Commit all changes and push the branch to origin (pre_push hooks first)',
    options: [['--message <message>', 'Commit message (default: derived from the branch name)']],
    load: async () => (await import('./commands/work-push.js')).handler,
  },
  {
    name: 'introspect', description: 'Print the whole command tree, plugin commands included',
    load: async () => (await import('./commands/introspect.js')).handler,
  },
  // end run, lanes, work, introspect
  // review, ai status, spec list
  {
    name: 'review', description: 'Review the working changes (or one file) with the active model and an optional panel',
    options: [
      ['--file <path>', 'Review this file instead of the changes against HEAD'],
      ['--with-model <name>', 'Add a panel member: provider:model, or a model of the active provider (repeatable)'],
      ['--provider <name>', 'Active provider for this run (anthropic, ollama)'],
      ['--model <name>', 'Active model for this run'],
      ['--timeout <seconds>', 'Give up on a member after this long (default 300)'],
      ['--max-tokens <n>', 'Longest answer a member may write (default 4096)'],
    ],
    load: async () => (await import('./commands/review.js')).handler,
  },
  {
    name: 'login', description: 'Sign this machine in to a Roost server (device authorization) and keep the key in $ROOST_HOME/config.toml',
    options: [['--server <url>', 'The server (default: ROOST_SERVER, the one logged in to last, or http://127.0.0.1:3000)']],
    environment: [['ROOST_SERVER', 'the server to sign in to when --server is not given'], ['ROOST_HOME', 'where config.toml is kept (default ~/.roost)']],
    load: async () => (await import('./commands/login.js')).handler,
  },
  {
    name: 'ai status', description: 'Show the active provider and model, and where each value came from',
    options: [
      ['--provider <name>', 'Provider as a flag would set it (anthropic, ollama)'],
      ['--model <name>', 'Model as a flag would set it'],
      ['--check', 'Ask the provider whether it answers and knows the model (exit 1 when not)'],
    ],
    load: async () => (await import('./commands/ai-status.js')).handler,
  },
  {
    name: 'spec list', description: 'Spec index and semantic project map: packages, modules, exported symbols, spec documents',
    options: [['--workers <n>', 'Worker threads for indexing (0: in-process; default: by tree size)']],
    load: async () => (await import('./commands/spec-list.js')).handler,
  },
  // end review, ai status, spec list
  // plugins
  {
    name: 'plugins install', args: '[source]', description: 'Install a plugin from <org>/<repo>, a path or a git URL (--defaults: deps, metrics, github; --community: secrets, sbom, license, context, coverage, notify)',
    options: [['--defaults', 'Install the three default plugins that ship with roost'], ['--community', 'Install the community-command plugins that ship with roost'], ['--yes', 'Approve the capabilities, hooks and sandbox grants the plugin asks for']],
    load: async () => (await import('./commands/plugins-install.js')).handler,
  },
  { name: 'plugins list', description: 'List the installed plugins', load: async () => (await import('./commands/plugins-list.js')).handler },
  {
    name: 'plugins remove', args: '<name>', description: 'Uninstall a plugin',
    options: [['--purge', "Also delete the plugin's stored values"]],
    load: async () => (await import('./commands/plugins-remove.js')).handler,
  },
  {
    name: 'plugins update', args: '[name]', description: 'Fetch installed plugins again from where they came from (all of them without a name)',
    options: [['--yes', 'Approve what an update asks for beyond the earlier approval']],
    load: async () => (await import('./commands/plugins-update.js')).handler,
  },
  // end plugins
];
