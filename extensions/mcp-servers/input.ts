// What a client may write: the JSON Schema of a config (schemas/server-fields.json, required on create,
// partial on update), the rules across fields a schema says badly, and the masking of sealed values on
// the way out.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ValidateFunction } from 'ajv';
import { validationError } from '../../protocol/errors.js';
import { describeErrors, schemaValidator } from '../../protocol/validate.js';
import { parseHttpUrl } from '../../sdk/outbound.js';
import type { ConnectableConfig, ServerConfig, ServerInput } from './store.js';

/** What a sealed value reads as in every reply; sent back unchanged in an update, it keeps the stored value. */
export const MASK = '********';

export interface ServerBody {
  name?: string;
  description?: string;
  transport?: 'stdio' | 'http';
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
  url?: string;
  headers?: Record<string, string>;
  agentIds?: 'all' | string[];
  enabled?: boolean;
}

type Validators = { create: ValidateFunction; update: ValidateFunction };

/** Not running state: a pure function of the extension's own folder, memoized by it (compiled on first use). */
const built = new Map<string, Validators>();

/**
 * The create and update validators, built once from schemas/server-fields.json: a create requires name,
 * transport and agentIds, an update any one field (server-create.json and server-update.json describe
 * the same two to GET /api/openapi.json).
 */
function validators(pluginDir: string): Validators {
  let found = built.get(pluginDir);
  if (!found) {
    const fields = JSON.parse(readFileSync(join(pluginDir, 'schemas', 'server-fields.json'), 'utf8')) as Record<string, unknown>;
    found = { create: schemaValidator({ ...fields, required: ['name', 'transport', 'agentIds'] }), update: schemaValidator({ ...fields, minProperties: 1 }) };
    built.set(pluginDir, found);
  }
  return found;
}

export function validateCreate(pluginDir: string, body: unknown): ServerBody {
  return check(validators(pluginDir).create, body);
}

export function validateUpdate(pluginDir: string, body: unknown): ServerBody {
  return check(validators(pluginDir).update, body);
}

function check(fn: ValidateFunction, body: unknown): ServerBody {
  if (!fn(body)) throw validationError(describeErrors(fn.errors ?? [], 'body'));
  return body as ServerBody;
}

/**
 * The config a body describes, on top of what is stored (for an update). Fields of the other transport
 * are refused; a masked value keeps the stored one. Sealed parts the body does not touch are left out
 * (kept as stored, never opened); `open` is called only when a masked value must be looked up.
 */
export function resolveInput(body: ServerBody, stored?: { config: ServerConfig; open: () => ConnectableConfig }): ServerInput {
  const base = stored?.config;
  const transport = body.transport ?? base?.transport ?? 'stdio';
  // Nothing stored to keep: a new config, or one switching transport (the old transport's fields go).
  const fresh = base === undefined || transport !== base.transport;
  const kept = <T>(value: T | undefined, old: T | undefined, none: T): T => value ?? (fresh ? none : (old ?? none));
  if (transport === 'stdio' && (body.url !== undefined || body.headers !== undefined)) throw validationError('body.url and body.headers belong to an http server, not a stdio one');
  if (transport === 'http' && (body.command !== undefined || body.args !== undefined || body.env !== undefined || body.cwd !== undefined)) {
    throw validationError('body.command, body.args, body.env and body.cwd belong to a stdio server, not an http one');
  }
  const input: ServerInput = {
    name: body.name ?? base!.name,
    description: body.description ?? base?.description ?? '',
    transport,
    command: transport === 'stdio' ? kept(body.command, base?.command, null) : null,
    cwd: transport === 'stdio' ? kept(body.cwd, base?.cwd, null) : null,
    agentIds: body.agentIds ?? base!.agentIds,
    enabled: body.enabled ?? base?.enabled ?? true,
  };
  if (transport === 'stdio' && !input.command) throw validationError('body.command is required for a stdio server');
  let opened: ConnectableConfig | undefined;
  const storedValues = fresh ? undefined : () => (opened ??= stored!.open());

  const field = transport === 'stdio' ? 'env' : 'headers';
  const map = body[field];
  if (map !== undefined || fresh) {
    const values = unmask(map ?? {}, storedValues && (() => storedValues().secrets[field]), field);
    input.secrets = { env: {}, headers: {}, [field]: values };
  }
  if (transport === 'stdio') {
    if (body.args !== undefined || fresh) input.target = { args: unmaskArgs(body.args ?? [], storedValues && (() => storedValues().target.args)), url: null };
  } else if (body.url !== undefined ? !(base && !fresh && body.url === maskedUrl(base)) : fresh) {
    if (body.url === undefined) throw validationError('body.url is required for an http server');
    input.target = { args: [], url: parseHttpUrl(body.url, 'body.url').href };
  }
  return input;
}

function unmask(given: Record<string, string>, stored: (() => Record<string, string>) | undefined, field: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(given)) {
    if (value !== MASK) out[name] = value;
    else if (stored?.()[name] !== undefined) out[name] = stored()[name]!;
    else throw validationError(`body.${field}.${name} is the mask "${MASK}" but no value is stored for it`);
  }
  return out;
}

/** args: "********" at a position keeps the stored argument at that position. */
function unmaskArgs(given: string[], stored: (() => string[]) | undefined): string[] {
  return given.map((value, i) => {
    if (value !== MASK) return value;
    const old = stored?.()[i];
    if (old === undefined) throw validationError(`body.args[${i}] is the mask "${MASK}" but no argument is stored at that position`);
    return old;
  });
}

/** The URL as answered: its origin, the rest masked (paths and queries often carry tokens). */
export const maskedUrl = (config: ServerConfig): string | null => (config.urlOrigin === null ? null : `${config.urlOrigin}/${MASK}`);

/** A config as clients see it: every sealed value masked, never returned. */
export function publicView(config: ServerConfig, secretsReadable: boolean): Record<string, unknown> {
  const { tenantId: _tenant, envNames, headerNames, urlOrigin: _origin, argCount, sealed: _sealed, ...rest } = config;
  const masked = (names: string[]) => Object.fromEntries(names.map((n) => [n, MASK]));
  return { ...rest, args: Array.from({ length: argCount }, () => MASK), url: maskedUrl(config), env: masked(envNames), headers: masked(headerNames), secretsReadable };
}
