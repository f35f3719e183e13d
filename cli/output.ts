// How every roost command talks to its caller: one JSON document on stdout with --json (success or
// error envelope, always with schema_version), prose on stdout otherwise, everything else on stderr.
import { RoostError, toRoostError } from '../protocol/errors.js';
import { palette } from './colour.js';

export const SCHEMA_VERSION = 1;

/** Exit codes: 0 success, 1 failure, 2 usage error; `run` passes a task's own code through. */
export const EXIT = { OK: 0, FAILURE: 1, USAGE: 2 } as const;

export interface CommandResult {
  /** The machine-readable result; printed under --json together with schema_version and ok. */
  data: Record<string, unknown>;
  /** What a person sees on stdout without --json. */
  text?: string;
  /** Defaults to 0; `run` passes the task's own exit code here. */
  exitCode?: number;
  /** The command printed its one document itself, earlier (`serve` prints it when it listens). */
  printed?: boolean;
}

export function usageError(message: string): RoostError {
  return new RoostError('USAGE', message);
}

export function printResult(result: CommandResult, json: boolean): number {
  const exitCode = result.exitCode ?? EXIT.OK;
  if (result.printed) return exitCode;
  if (json) {
    writeJson({ schema_version: SCHEMA_VERSION, ok: exitCode === 0, ...result.data });
  } else if (result.text !== undefined && result.text !== '') {
    process.stdout.write(result.text.endsWith('\n') ? result.text : `${result.text}\n`);
  }
  return exitCode;
}

export function printError(err: unknown, json: boolean): number {
  const error = toRoostError(err);
  const exitCode = error.code === 'USAGE' ? EXIT.USAGE : EXIT.FAILURE;
  const message = error.code === 'INTERNAL' && err instanceof Error ? err.message : error.message;
  if (json) {
    writeJson({ schema_version: SCHEMA_VERSION, ok: false, error: { code: error.code, message } });
  } else {
    process.stderr.write(`${palette(process.stderr).red('roost:')} ${message}\n`);
  }
  return exitCode;
}

function writeJson(doc: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(doc)}\n`);
}
