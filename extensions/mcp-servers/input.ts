// What a client may write: the JSON Schema of a config (one definition, required on create, partial on
// update), the rules across fields a schema says badly, and the masking of secrets on the way out.
import type { ValidateFunction } from 'ajv';
import { validationError } from '../../protocol/errors.js';
import { describeErrors, schemaValidator } from '../../protocol/validate.js';
import type { Secrets, ServerConfig, ServerInput } from './store.js';

/** What a secret value reads as in every reply; sent back unchanged in an update, it keeps the stored value. */
export const MASK = '********';

const secretMap = (names: object) => ({
  type: 'object',
  maxProperties: 100,
  propertyNames: names,
  additionalProperties: { type: 'string', maxLength: 8192, pattern: '^[^\\r\\n\\u0000]*$' },
});

const FIELDS = {
  // Letters and digits, single - or _ between them: "__" separates the namespace in tool names.
  name: { type: 'string', minLength: 1, maxLength: 32, pattern: '^[A-Za-z0-9]+([_-][A-Za-z0-9]+)*$' },
  description: { type: 'string', maxLength: 2000 },
  transport: { enum: ['stdio', 'http'] },
  command: { type: 'string', minLength: 1, maxLength: 4096 },
  args: { type: 'array', maxItems: 100, items: { type: 'string', maxLength: 4096 } },
  env: secretMap({ pattern: '^[A-Za-z_][A-Za-z0-9_]{0,127}$' }),
  cwd: { type: 'string', maxLength: 4096, pattern: '^/' },
  url: { type: 'string', maxLength: 2048, pattern: '^https?://[^\\s]+$' },
  headers: secretMap({ pattern: "^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,128}$" }),
  agentIds: {
    oneOf: [
      { const: 'all' },
      { type: 'array', maxItems: 500, uniqueItems: true, items: { type: 'string', minLength: 1, maxLength: 100 } },
    ],
  },
  enabled: { type: 'boolean' },
};

let createSchema: ValidateFunction | undefined;
let updateSchema: ValidateFunction | undefined;

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

export function validateCreate(body: unknown): ServerBody {
  createSchema ??= schemaValidator({ type: 'object', additionalProperties: false, required: ['name', 'transport', 'agentIds'], properties: FIELDS });
  return check(createSchema, body);
}

export function validateUpdate(body: unknown): ServerBody {
  updateSchema ??= schemaValidator({ type: 'object', additionalProperties: false, minProperties: 1, properties: FIELDS });
  return check(updateSchema, body);
}

function check(fn: ValidateFunction, body: unknown): ServerBody {
  if (!fn(body)) throw validationError(describeErrors(fn.errors ?? [], 'body'));
  return body as ServerBody;
}

/**
 * The whole config a body describes, on top of what is stored (for an update): fields of the other
 * transport are refused, and a masked secret keeps its stored value.
 */
export function resolveInput(body: ServerBody, stored?: { config: ServerConfig; secrets: Secrets }): ServerInput {
  const base = stored?.config;
  const transport = body.transport ?? base?.transport ?? 'stdio';
  const switched = base !== undefined && transport !== base.transport;
  const input: ServerInput = {
    name: body.name ?? base!.name,
    description: body.description ?? base?.description ?? '',
    transport,
    command: body.command ?? (switched ? null : (base?.command ?? null)),
    args: body.args ?? (switched ? [] : (base?.args ?? [])),
    cwd: body.cwd ?? (switched ? null : (base?.cwd ?? null)),
    url: body.url ?? (switched ? null : (base?.url ?? null)),
    agentIds: body.agentIds ?? base!.agentIds,
    enabled: body.enabled ?? base?.enabled ?? true,
    secrets: {
      env: unmask(body.env, switched ? {} : stored?.secrets.env, 'env'),
      headers: unmask(body.headers, switched ? {} : stored?.secrets.headers, 'headers'),
    },
  };
  if (transport === 'stdio') {
    if (!input.command) throw validationError('body.command is required for a stdio server');
    if (body.url !== undefined || body.headers !== undefined) throw validationError('body.url and body.headers belong to an http server, not a stdio one');
    input.url = null;
    input.secrets.headers = {};
  } else {
    if (!input.url) throw validationError('body.url is required for an http server');
    if (body.command !== undefined || body.args !== undefined || body.env !== undefined || body.cwd !== undefined) {
      throw validationError('body.command, body.args, body.env and body.cwd belong to a stdio server, not an http one');
    }
    parseUrl(input.url);
    Object.assign(input, { command: null, args: [], cwd: null });
    input.secrets.env = {};
  }
  return input;
}

function parseUrl(url: string): void {
  try {
    new URL(url);
  } catch {
    throw validationError('body.url is not a valid URL');
  }
}

function unmask(given: Record<string, string> | undefined, stored: Record<string, string> | undefined, field: string): Record<string, string> {
  if (given === undefined) return { ...stored };
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(given)) {
    if (value !== MASK) out[name] = value;
    else if (stored?.[name] !== undefined) out[name] = stored[name]!;
    else throw validationError(`body.${field}.${name} is the mask "${MASK}" but no value is stored for it`);
  }
  return out;
}

/** A config as clients see it: secret values masked, never returned. */
export function publicView(config: ServerConfig): Record<string, unknown> {
  const { tenantId: _tenant, envNames, headerNames, ...rest } = config;
  const masked = (names: string[]) => Object.fromEntries(names.map((n) => [n, MASK]));
  return { ...rest, env: masked(envNames), headers: masked(headerNames) };
}
