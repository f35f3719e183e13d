// The frame a TypeScript CLI plugin runs in: wait for init, run the command, exit with its code.
// Errors become a message on stderr, or the error envelope on stdout when the plugin was given --json
// (the same shape roost's own commands print). Usage errors exit 2, other failures 1.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { RoostError } from '../protocol/errors.js';
import type { InitMessage } from '../protocol/messages.js';
import { Peer } from '../protocol/peer.js';
import { HostClient } from './host-client.js';

export interface PluginContext {
  init: InitMessage;
  host: HostClient;
  /** Aborted when roost sends `cancel` (Ctrl-C, a time limit). */
  signal: AbortSignal;
  prompt(message: string, defaultValue?: string): Promise<string>;
  confirm(message: string, defaultValue?: boolean): Promise<boolean>;
  /** Prints one JSON document (the --json result) with schema_version and ok. */
  json(data: Record<string, unknown>, ok?: boolean): void;
  /** Prints text followed by a line break. */
  print(text: string): void;
}

export type PluginMain = (ctx: PluginContext) => Promise<number>;

export const SCHEMA_VERSION = 1;

/** Runs `main` once init arrives; `usage` is printed for --help / -h instead. */
export function runPlugin(main: PluginMain, usage: string): void {
  const peer = new Peer(process.stdout, { onWarning: (w) => process.stderr.write(`protocol warning: ${JSON.stringify(w)}\n`) });
  const host = new HostClient(peer);
  const cancel = new AbortController();
  let started = false;
  peer.handle('cancel', () => cancel.abort());
  peer.handle('init', (message) => {
    if (started) return;
    started = true;
    const init = message as unknown as InitMessage;
    const ctx: PluginContext = {
      init,
      host,
      signal: cancel.signal,
      prompt: (text, def) => peer.request<string>({ type: 'prompt', message: text, ...(def === undefined ? {} : { default: def }) }),
      confirm: (text, def) => peer.request<boolean>({ type: 'confirm', message: text, ...(def === undefined ? {} : { default: def }) }),
      json: (data, ok = true) => host.output(`${JSON.stringify({ schema_version: SCHEMA_VERSION, ok, ...data })}\n`),
      print: (text) => host.output(text.endsWith('\n') ? text : `${text}\n`),
    };
    const run = init.args.includes('--help') || init.args.includes('-h') ? async () => (ctx.print(usage), 0) : main;
    run(ctx).then(
      (code) => finish(code),
      (err) => finish(report(err, init.args.includes('--json'), ctx)),
    );
  });
  peer.attach(process.stdin);
  process.stdin.on('end', () => {
    if (!started) finish(1);
  });
}

function report(err: unknown, json: boolean, ctx: PluginContext): number {
  const code = err instanceof RoostError ? String(err.code) : 'INTERNAL';
  const message = err instanceof Error ? err.message : String(err);
  if (json) ctx.json({ error: { code, message } }, false);
  else ctx.host.log('error', message);
  return code === 'USAGE' ? 2 : 1;
}

function finish(code: number): void {
  process.stdout.write('', () => process.exit(code));
}

/** node:util parseArgs over init.args, with its errors turned into usage errors. */
export function parseFlags<T extends NonNullable<ParseArgsConfig['options']>>(args: string[], options: T, allowPositionals = false) {
  try {
    return parseArgs({ args, options, allowPositionals, strict: true });
  } catch (err) {
    throw new RoostError('USAGE', (err as Error).message);
  }
}
