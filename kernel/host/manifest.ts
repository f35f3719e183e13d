// plugin.toml: read, validate against schemas/plugin-manifest.json, normalise (its [server] table in
// manifest-server.ts). Shared by the server's extension host and the CLI's plugin installer.
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { RoostError } from '../../protocol/errors.js';
import { FLEDGE_PROTOCOL, PROTOCOL } from '../../protocol/messages.js';
import { validate } from '../../protocol/validate.js';
import { KERNEL_VARIABLES } from '../config.js';
import { EXTENSION_KEY_SECRET } from '../auth/sealing-key.js';
import { preparedManifest } from './prepared-manifests.js';
import { normaliseServer, type RawServer } from './manifest-server.js';
import type { FileCache } from './schema-files.js';
import type { EventFilter } from './event-filter.js';
import type { Role } from '../auth/keys.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RouteDecl {
  method: HttpMethod;
  path: string;
  /** Served without authentication (inbound webhooks, registration). */
  public: boolean;
  /** The body reaches the extension as the raw string (for signature checks). */
  raw: boolean;
  /** Reachable only by other extensions through `call`, never over HTTP. */
  internal: boolean;
  /** Still changes things for a tenant that reads only (kernel/tenants/read-only.ts): the way out of it. */
  writableWhenReadOnly?: boolean;
  /** The environment variable holding a key a machine (a Prometheus scraper) may send as its bearer instead of an API key. */
  machineKey?: string;
  /** Its answers may be kept by the kernel ([server.cache]; kernel/http/response-cache.ts). */
  cached?: boolean;
  /** [server.empty_answers]: the body this internal GET answers while its extension has stored nothing. */
  emptyAnswer?: Record<string, unknown>;
  /** What the OpenAPI document says of it ([server.openapi] in plugin.toml), schemas already read. */
  doc?: RouteDoc;
}

export interface RouteDoc {
  summary?: string;
  query?: Record<string, unknown>;
  request?: Record<string, unknown>;
  response?: Record<string, unknown>;
  status?: number;
  /** The success body's media type when it is not JSON (`content_type` in plugin.toml). */
  contentType?: string;
  /** Error answers of another shape than {error, code} (`errors` in plugin.toml), schemas already read. */
  responses?: Record<string, { description: string; schema: Record<string, unknown> }>;
}

export interface ToolDecl {
  name: string;
  description: string;
  /** Input JSON schema, already read from the file the manifest named. */
  inputSchema: Record<string, unknown>;
  privileged: boolean;
}

export interface StreamDecl {
  /** The field a WebSocket `subscribe` carries (sessionId). */
  key: string;
  /** Bus topic template, e.g. "session.{sessionId}.*". */
  topic: string;
  /** Route (GET) whose 200 for the caller authorises the subscription. */
  authorize: string;
  /**
   * Route (GET) that, called with `?after=<seq>`, answers `{messages}`: the stream's messages after that
   * sequence number, as they were delivered live (each with a numeric `seq`), oldest first. With it a
   * `subscribe` may carry `since` and miss nothing.
   */
  replay?: string;
  /** The server message types the stream carries, as `welcome` lists them. */
  types?: string[];
  /**
   * The lowest role that receives the whole stream of its own tenant without subscribing (a client that
   * knows no key still sees it); a keyed `subscribe` narrows the client to the keys it names.
   */
  tenantWide?: Role;
}

/** How the host talks to the plugin: cli-v1, its fledge-v1 dialect, or plain (argv in, stdio passed through). */
export type PluginProtocol = typeof PROTOCOL | typeof FLEDGE_PROTOCOL | 'plain';

/** fledge's filesystem scope; `filesystem = true` is "project". */
export type FilesystemScope = 'project' | 'plugin';

/** [sandbox] of a CLI plugin: what of the person's machine it asks for beyond the defaults (cli/plugins/sandbox.ts). */
export interface PluginSandbox {
  /** Environment variables passed through when set. */
  env: string[];
  /** Variables passed through whose value, when it names a file, the plugin may read. */
  envFiles: string[];
  /** Host Unix sockets it may connect to. */
  sockets: string[];
}

/** A further port: the variable naming it, and the port taken when the variable is unset ("0" turns it off). */
export interface ListenDecl {
  variable: string;
  defaultPort?: number;
}

export interface Manifest {
  name: string;
  version: string;
  description: string;
  protocol: PluginProtocol;
  /** The names a server extension had before, oldest first (kernel/storage/renames.ts carries its data). */
  renamedFrom?: string[];
  author?: string;
  /** With the `filesystem` capability: where the plugin may write. */
  filesystemScope?: FilesystemScope;
  dir: string;
  capabilities: Record<string, boolean>;
  /** CLI plugins only; absent when the manifest asks for nothing beyond the defaults. */
  sandbox?: PluginSandbox;
  commands: Array<{ name: string; description: string; binary: string }>;
  hooks: { post_install?: string; pre_push?: string };
  build?: { command: string };
  server?: {
    main: string;
    /** eager: with the server; lazy: on first use; deferred: deferredStartMs after the start, or on first use. */
    activation: 'eager' | 'lazy' | 'deferred';
    /** Extensions it cannot work without: started before it, and kept loaded while it is (host/dependencies.ts). */
    requires: string[];
    /** Extensions it calls when they are loaded; without one, what needs it answers a clear error. */
    uses: string[];
    timeoutMs: number;
    /**
     * How long the start (spawn to `ready`, migrations included) may go without progress; unset: the
     * server's ROOST_EXTENSION_START_STALL_MS. A start that makes progress is bounded by the server's cap.
     */
    startTimeoutMs: number | undefined;
    /** What its data folder may take on disk, in MiB (unset: the server's default; ROOST_EXTENSION_DISK_MB overrides it). */
    diskMb: number | undefined;
    /** The environment variables its `secret` may read (with the secrets capability). */
    secrets: string[];
    /** [server.settings]: setting name → environment variable, for settings documented without ROOST_EXT_<NAME>_. */
    namedSettings: Record<string, string>;
    /** It answers the self-test's SELFTEST_ROUTE with end-to-end checks of its own. */
    selfChecks: boolean;
    /** Environment variables each naming a further port the server answers on as on its main one, with the port used when the variable is unset (kernel/http/extra-ports.ts). */
    listen: ListenDecl[];
    /** [server.tenant_hooks]: its routes the kernel's tenant routes ask (kernel/tenants/tenant-hooks.ts). */
    tenantHooks: TenantHooks;
    routes: RouteDecl[];
    ws: string[];
    subscribe: string[];
    /**
     * [server.subscribe_when."<pattern>"]: of the events a `subscribe` pattern matches, only those whose
     * payload's field holds one of the listed values reach the extension (an event it has no work for
     * neither wakes nor costs it). A pattern without an entry gets every event it matches.
     */
    subscribeWhen: Record<string, EventFilter>;
    /** [server.cache]: GET routes whose answers the kernel may keep, and the events that announce a change of what they answer (kernel/http/response-cache.ts). */
    cache?: { routes: string[]; invalidatedBy: string[] };
    /**
     * Topic patterns delivered from every instance sharing the database (state each instance's copy
     * must hold). `subscribe` patterns are delivered once per deployment: on the instance that published.
     */
    broadcast: string[];
    tools: ToolDecl[];
    streams: StreamDecl[];
  };
}

/** Each a route the extension declares ("METHOD /path"): profile and member take :tenantId. */
export interface TenantHooks {
  profile?: string;
  create?: string;
  member?: string;
}

interface RawManifest {
  plugin: { name: string; version: string; description?: string; protocol?: string; author?: string; runtime?: string; renamed_from?: string[] };
  capabilities?: Record<string, boolean | 'none' | FilesystemScope>;
  sandbox?: { env?: string[]; env_files?: string[]; sockets?: string[] };
  commands?: Array<{ name: string; description?: string; binary: string }>;
  hooks?: { post_install?: string; pre_push?: string; build?: string };
  build?: { command: string };
  server?: RawServer;
}

/**
 * Reads `<dir>/plugin.toml`, or the manifest file itself when given a path ending in .toml, or the copy
 * the build prepared of it (prepared-manifests.ts). `sources`, when given, receives every file the
 * manifest is read from (the plugin.toml and the schema files it names), and no prepared copy is used.
 */
export async function readManifest(path: string, sources?: Set<string>): Promise<Manifest> {
  const file = path.endsWith('.toml') ? resolve(path) : join(resolve(path), 'plugin.toml');
  const prepared = sources ? undefined : preparedManifest(dirname(file));
  if (prepared) return prepared;
  sources?.add(file);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    throw new RoostError('VALIDATION_ERROR', `no plugin.toml at ${file}`);
  }
  return parseManifest(text, dirname(file), sources);
}

export async function parseManifest(text: string, dir: string, sources?: Set<string>): Promise<Manifest> {
  let data: unknown;
  try {
    data = parseToml(text);
  } catch (err) {
    throw new RoostError('VALIDATION_ERROR', `plugin.toml in ${dir} is not valid TOML: ${(err as Error).message.split('\n')[0]}`);
  }
  const raw = validate<RawManifest>('plugin-manifest.json', data, 'plugin.toml');
  const { name, protocol, runtime } = raw.plugin;
  if (protocol !== undefined && protocol !== PROTOCOL && protocol !== FLEDGE_PROTOCOL) {
    throw new RoostError('VALIDATION_ERROR', `plugin ${name} speaks protocol "${protocol}"; this host speaks "${PROTOCOL}" (CLI plugins also "${FLEDGE_PROTOCOL}", or none for a plain plugin)`);
  }
  if (runtime !== undefined && runtime !== 'native') {
    throw new RoostError('VALIDATION_ERROR', `plugin ${name} needs the "${runtime}" runtime; roost runs native plugins only (runtime = "native", or no runtime line)`);
  }
  if (raw.build && raw.hooks?.build) throw new RoostError('VALIDATION_ERROR', `plugin ${name} names a build command twice: keep [build] command or [hooks] build`);
  const { build: buildHook, ...hooks } = raw.hooks ?? {};
  const { capabilities, filesystemScope } = normaliseCapabilities(raw.capabilities ?? {});
  const sandbox = normaliseSandbox(raw.sandbox ?? {});
  refuseKernelVariables(name, [...(raw.server?.secrets ?? []), ...Object.values(raw.server?.settings ?? {}), ...(raw.server?.listen ?? []).map((l) => (typeof l === 'string' ? l : l.env))]);
  // A file that several schemas refer to is read and inlined once.
  const schemaFiles: FileCache = new Map();
  const manifest: Manifest = {
    name,
    version: raw.plugin.version,
    description: raw.plugin.description ?? '',
    protocol: protocol === undefined ? 'plain' : (protocol as PluginProtocol),
    ...(raw.plugin.renamed_from?.length ? { renamedFrom: raw.plugin.renamed_from } : {}),
    ...(raw.plugin.author ? { author: raw.plugin.author } : {}),
    ...(filesystemScope ? { filesystemScope } : {}),
    dir,
    capabilities,
    ...(sandbox ? { sandbox } : {}),
    commands: (raw.commands ?? []).map((c) => ({ name: c.name, description: c.description ?? '', binary: c.binary })),
    hooks,
    build: raw.build ?? (buildHook ? { command: buildHook } : undefined),
    server: raw.server && normaliseServer(name, raw.server, dir, capabilities.db === true, schemaFiles),
  };
  for (const schemaFile of schemaFiles.keys()) sources?.add(schemaFile);
  return manifest;
}

/** Server extensions speak cli-v1 itself: fledge-v1 and plain plugins are CLI plugins only. */
export function assertServerProtocol(manifest: Manifest): void {
  if (manifest.protocol !== PROTOCOL) {
    throw new RoostError('VALIDATION_ERROR', `plugin ${manifest.name} speaks protocol "${manifest.protocol}"; server extensions speak "${PROTOCOL}"`);
  }
}

/**
 * A manifest declares variables of its own feature, never the kernel's (its database URL, its keys):
 * those, the sealing key `secret` hands out by name, and the two prefixes the kernel already routes
 * (ROOST_EXT_<NAME>_ settings, ROOST_SECRET_ secrets) are refused.
 */
function refuseKernelVariables(plugin: string, names: string[]): void {
  const taken = names.find((variable) => KERNEL_VARIABLES.has(variable) || variable === EXTENSION_KEY_SECRET || variable.startsWith('ROOST_EXT_') || variable.startsWith('ROOST_SECRET_'));
  if (taken) throw new RoostError('VALIDATION_ERROR', `plugin ${plugin} declares ${taken} as a secret or setting: that variable is the kernel's own (or routed by its prefix); declare a variable of the extension's feature`);
}

/** fledge writes `filesystem = "none" | "project" | "plugin"`; the grant is a boolean plus its scope. */
function normaliseCapabilities(raw: NonNullable<RawManifest['capabilities']>): { capabilities: Record<string, boolean>; filesystemScope?: FilesystemScope } {
  const capabilities: Record<string, boolean> = {};
  let filesystemScope: FilesystemScope | undefined;
  for (const [name, value] of Object.entries(raw)) {
    if (typeof value === 'boolean') capabilities[name] = value;
    else capabilities[name] = value !== 'none';
    if (name === 'filesystem' && capabilities[name]) filesystemScope = typeof value === 'string' && value !== 'none' ? value : 'project';
  }
  return { capabilities, ...(filesystemScope ? { filesystemScope } : {}) };
}

function normaliseSandbox(raw: NonNullable<RawManifest['sandbox']>): PluginSandbox | undefined {
  const sandbox = { env: [...(raw.env ?? [])].sort(), envFiles: [...(raw.env_files ?? [])].sort(), sockets: [...(raw.sockets ?? [])].sort() };
  return sandbox.env.length + sandbox.envFiles.length + sandbox.sockets.length > 0 ? sandbox : undefined;
}

