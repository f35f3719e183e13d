// One running plugin or extension: the child process, its init, and the plugin → host handlers with
// a capability check on every message. The CLI (plugin commands, hooks) and the server (extensions)
// both run plugins through this class; they differ only in the HostServices they pass.
import { PluginChild, type ChildExit } from '../../lib/child.js';
import { RoostError } from '../../protocol/errors.js';
import { decodeAttachment } from '../../protocol/framing.js';
import { CAPABILITY_OF, type AuthContext, type EventMessage, type InitMessage, type TraceContext, type WsMessage } from '../../protocol/messages.js';
import { WithAttachment, type IncomingMessage, type OutgoingMessage, type PeerWarning, type RequestOptions } from '../../protocol/peer.js';
import { runnableEntry } from '../../lib/paths.js';
import { describeErrors, messageValidator } from '../../protocol/validate.js';
import { dialectFor, type CancelCause, type Dialect } from './dialects/dialect.js';
import type { Manifest } from './manifest.js';
import { projectSeenBy } from './project-view.js';
import { sandboxedPid } from './sandbox.js';
import type { CallReply } from '../http/dispatch.js';
import type { HostServices } from './services.js';
import { RouteStreams } from './route-streams.js';

export interface PluginProcessOptions {
  manifest: Manifest;
  /** Path of the executable, relative to the plugin dir (a command binary, a hook, or server.main). */
  entry: string;
  /** Granted capabilities; the set is read on every message, so grant/revoke take effect at once. */
  grants: Set<string>;
  services: HostServices;
  init: Pick<InitMessage, 'args' | 'project' | 'host'> & Partial<Pick<InitMessage, 'command' | 'storage' | 'config'>>;
  cwd?: string;
  env?: Record<string, string | undefined>;
  nodeFlags?: string[];
  /** The sandbox the child runs in (see kernel/host/sandbox.ts). */
  wrapper?: string[];
  /** Watches the child while it runs and may stop it (kernel/host/extension-guard.ts). */
  guard?: { watch(pid: number | undefined, exited: Promise<unknown>): void; stoppedFor(exit: ChildExit): string | undefined };
  requestTimeoutMs?: number;
  onStderr?: (line: string) => void;
  onExit?: (exit: ChildExit) => void;
  /** A server extension announces it has migrated and can serve. */
  onReady?: (info: { schemaVersion: number; routes?: string[] }) => void;
  /** What a denied `load` answers: the CLI says '' (as for a key with nothing stored), the server null. */
  nothingStored?: string | null;
}

const MAX_WARNINGS_PER_SECOND = 5;

/** How many recent requests and notifications an audit may still name as its context. */
const MAX_SERVED_CONTEXTS = 4_096;

/** A request to the extension; `httpRequestId` is the X-Request-Id of the HTTP request it serves, which its log lines then carry. */
export interface HostRequestOptions extends RequestOptions {
  httpRequestId?: string;
}

export class PluginProcess {
  readonly child: PluginChild;
  /** Auth of each host request in flight, so a `call` made while serving it runs as the same caller. */
  private readonly inFlightAuth = new Map<string, AuthContext>();
  /** The tenant (and HTTP request id) of each request and notification recently sent, by its context id:
   * an `audit` names its context and gets that tenant, never one it names itself; a `log` gets the
   * request id. Bounded, oldest first out. */
  private readonly served = new Map<string, { tenantId: string | null; requestId: string | undefined }>();
  private notificationCounter = 0;
  private warnings = { second: 0, count: 0 };
  private requestCounter = 0;
  /** The extension said in `ready` that it takes request bodies as attachments (protocol/framing.ts). */
  private acceptsAttachments = false;
  private readonly dialect: Dialect;
  /** Aborted when the child exits: work it asked for (an exec) ends with it. */
  private readonly lifetime = new AbortController();
  /** The bodies of streamed route replies, by request id (route-streams.ts). */
  private readonly streams = new RouteStreams((message) => this.child.peer.notify(message));

  constructor(private readonly options: PluginProcessOptions) {
    const { manifest } = options;
    if (manifest.protocol === 'plain') throw new RoostError('VALIDATION_ERROR', `${manifest.name} is a plain plugin: it speaks no protocol`);
    this.dialect = dialectFor(manifest.protocol);
    this.child = new PluginChild(runnableEntry(`${manifest.dir}/${options.entry}`), [], {
      cwd: options.cwd ?? manifest.dir,
      env: options.env,
      nodeFlags: options.nodeFlags,
      wrapper: options.wrapper,
      politeSignalTarget: sandboxedPid,
      timeoutMs: options.requestTimeoutMs,
      onStderr: options.onStderr,
      onWarning: (w) => this.warn(w),
    });
    this.registerHandlers();
    options.guard?.watch(this.child.pid, this.child.exited);
    this.child.exited.then((exit) => {
      this.lifetime.abort();
      this.streams.endAll();
      options.onExit?.(exit);
    });
    this.child.peer.notify(this.initMessage());
  }

  get name(): string {
    return this.options.manifest.name;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Why its guard stopped it (a process limit, a disk budget), for the extension's lastError; undefined when it did not. */
  stoppedFor(exit: ChildExit): string | undefined {
    return this.options.guard?.stoppedFor(exit);
  }

  /** Sends a host → plugin request (request, tool) and waits for its value. */
  async request<T>(message: { type: string; auth?: AuthContext } & Record<string, unknown>, { httpRequestId, ...options }: HostRequestOptions = {}): Promise<T> {
    const auth = message.auth ?? (message.caller as { tenantId: string } | undefined);
    const id = `h${++this.requestCounter}`;
    if (auth) this.inFlightAuth.set(id, normaliseAuth(auth));
    this.remember(id, auth?.tenantId ?? null, httpRequestId);
    if (options.attachment && !this.acceptsAttachments) {
      // An extension that does not take attachments gets the body inside the frame, decoded once here.
      message = { ...message, body: decodeAttachment(options.attachment, message.raw === true ? 'text' : 'json') };
      options = { ...options, attachment: undefined };
    }
    const route = message.type === 'request';
    if (route) this.streams.expect(id);
    let streaming = false;
    const send = (trace?: TraceContext) => this.child.peer.request<T>(trace ? { ...message, trace } : message, { ...options, id });
    const tracing = this.options.services.tracing;
    try {
      const reply = !tracing || (message.type !== 'request' && message.type !== 'tool')
        ? await send()
        : await tracing.aroundExtension({ extension: this.name, type: message.type, tenantId: auth?.tenantId, ...(message.type === 'tool' ? { tool: String(message.name) } : { route: String(message.route) }) }, send);
      const body = route ? this.streams.settle(id, (reply as { stream?: unknown } | null)?.stream === true) : undefined;
      if (!body) return reply;
      // While the body streams, calls the extension makes for it still run as this request's caller.
      streaming = true;
      body.once('close', () => this.inFlightAuth.delete(id));
      return { ...(reply as object), body } as T;
    } catch (err) {
      if (route) this.streams.settle(id, false);
      throw err;
    } finally {
      if (!streaming) this.inFlightAuth.delete(id);
    }
  }

  /** WebSocket messages and events carry a `context` id, the handle an `audit` made while serving them names. */
  notify(message: OutgoingMessage): void {
    if (message.type === 'ws' || message.type === 'event') {
      const context = `n${++this.notificationCounter}`;
      const served = message as Partial<WsMessage> | Partial<EventMessage>;
      this.remember(context, ('auth' in served ? served.auth?.tenantId : 'tenantId' in served ? served.tenantId : null) ?? null);
      message = { ...message, context };
    }
    // An event is a reaction off the request path: it may wait a few milliseconds to share a write (and
    // the extension's wake-up) with other frames.
    if (message.type === 'event') this.child.peer.notifyDeferred(message);
    else this.child.peer.notify(message);
  }

  private servedContext(context: unknown) {
    return typeof context === 'string' ? this.served.get(context) : undefined;
  }

  private remember(context: string, tenantId: string | null, requestId?: string): void {
    this.served.set(context, { tenantId, requestId });
    if (this.served.size > MAX_SERVED_CONTEXTS) this.served.delete(this.served.keys().next().value!);
  }

  /** Asks the plugin to stop what it does; SIGTERM 5 s later and SIGKILL 10 s later if it is still there. */
  cancel(reason: string, cause: CancelCause = 'interrupted'): Promise<ChildExit> {
    this.notify({ type: 'cancel', reason: this.dialect.cancelReason(cause, reason) });
    return this.child.stop({ closeGraceMs: 5_000, termGraceMs: 5_000 });
  }

  stop(): Promise<ChildExit> {
    return this.child.stop();
  }

  private initMessage(): InitMessage {
    const { manifest, init, grants } = this.options;
    const capabilities: Record<string, boolean> = {};
    for (const name of Object.keys(manifest.capabilities)) capabilities[name] = grants.has(name);
    return this.dialect.init({
      type: 'init',
      protocol: manifest.protocol as InitMessage['protocol'],
      args: init.args,
      ...(init.command ? { command: init.command } : {}),
      project: projectSeenBy(init.project, grants),
      plugin: { name: manifest.name, version: manifest.version, dir: manifest.dir },
      host: init.host,
      capabilities,
      ...(init.storage ? { storage: init.storage } : {}),
      ...(init.config ? { config: init.config } : {}),
    });
  }

  private registerHandlers(): void {
    const peer = this.child.peer;
    for (const type of [...Object.keys(CAPABILITY_OF), ...this.dialect.extraTypes]) {
      peer.handle(type, (message) => this.dispatch(type, message));
    }
  }

  private dispatch(type: string, incoming: IncomingMessage): unknown {
    const message = this.dialect.translate(type, incoming);
    const validator = messageValidator(type);
    if (validator && !validator(message)) {
      throw new RoostError('VALIDATION_ERROR', describeErrors(validator.errors ?? [], type));
    }
    const capability = CAPABILITY_OF[type];
    if (capability !== undefined && !this.options.grants.has(capability)) return this.deny(type, capability);
    return this.serve(type, message as Record<string, any>);
  }

  /** The answer a plugin gets when it lacks the capability (exec 126, load nothing stored, metadata {}). */
  private deny(type: string, capability: string): unknown {
    const why = `capability "${capability}" is not granted to ${this.name}`;
    if (type === 'exec') return { code: 126, stdout: '', stderr: `roost: ${why}\n` };
    if (type === 'load') return this.options.nothingStored ?? null;
    if (type === 'metadata') return {};
    this.options.services.log('warn', `[${this.name}] ${type} refused: ${why}`);
    throw new RoostError('CAPABILITY_DENIED', why);
  }

  private serve(type: string, m: Record<string, any>): unknown {
    const s = this.options.services;
    const need = <K extends keyof HostServices>(key: K): NonNullable<HostServices[K]> => {
      const service = s[key];
      if (!service) throw new RoostError('CAPABILITY_DENIED', `${type} is not available in this host`);
      return service as NonNullable<HostServices[K]>;
    };
    switch (type) {
      case 'exec':
        return s.exec({
          command: m.command, cwd: m.cwd, timeout: m.timeout, signal: this.lifetime.signal,
          ...(m.stream === true ? { onOutput: (stream, data) => this.notify({ type: 'exec_output', exec: m.id, stream, data }) } : {}),
        });
      case 'store':
        return s.store(m.key, m.value).then(() => true);
      case 'load':
        return s.load(m.key);
      case 'metadata':
        return s.metadata(m.keys);
      case 'prompt':
      case 'confirm':
      case 'select':
        return s.ask({ kind: type, message: m.message, default: m.default, options: m.options });
      case 'multi_select':
        return s.ask({ kind: type, message: m.message, default: m.defaults, options: m.options });
      case 'output':
        return s.output(m.text);
      case 'log':
        return s.log(m.level ?? 'info', `[${this.name}] ${m.message}`, { extension: this.name, requestId: this.servedContext(m.context)?.requestId });
      case 'progress':
        return s.progress({ message: m.message, current: m.current, total: m.total, done: m.done });
      case 'emit':
        return need('emit')(m.topic, m.payload, m.tenantId ?? null);
      case 'call': {
        const httpRequestId = this.servedContext(m.requestId)?.requestId;
        const call = () => need('call')({ method: m.method, path: m.path, body: m.body, attachment: m.attachment, auth: this.callAuth(m), public: m.public === true, httpRequestId }).then((reply) => this.callReply(reply));
        // An extension's call continues the trace its frame names (or none: never the context its pipe was read in).
        return s.tracing ? s.tracing.within(m.trace, call) : call();
      }
      case 'spans':
        return void s.tracing?.received(this.name, m.spans);
      case 'secret':
        return need('secret')(m.name);
      case 'audit':
        // The tenant is the one of the request or notification being served; without one, none.
        return need('audit')({ action: m.action, resource: m.resource, detail: m.detail, tenantId: this.servedContext(m.context)?.tenantId ?? null });
      case 'ws_send':
        return need('wsSend')(m.clientId, m.message);
      case 'token':
        return need('token')({ tenantId: m.tenantId, agentId: m.agentId, sessionId: m.sessionId ?? null, tools: m.tools ?? [], ttlSeconds: m.ttlSeconds });
      case 'wake_on_start':
        return need('wakeOnStart')(m.wake).then(() => true);
      case 'leader':
        return need('leader')(m.name);
      case 'mcp_tools':
        return need('mcpTools')();
      case 'routes':
        return need('routes')(typeof m.prefix === 'string' ? m.prefix : '/');
      case 'route_table':
        return need('routeTable')();
      case 'extensions':
        return need('extensions')();
      case 'system_metrics':
        return need('systemMetrics')(m.scrape === true);
      case 'restart':
        return need('restart')(m.reason).then(() => true);
      case 'queue_depth':
        return need('queueDepth')(m.queue, m.depth);
      case 'tenant':
        return need('tenant')(String(m.tenantId));
      case 'legacy_tenant_columns':
        return need('legacyTenantColumns')(m.columns);
      case 'set_tenant_read_only':
        return need('setTenantReadOnly')(String(m.tenantId), { at: m.at ?? null, reason: m.reason ?? null });
      case 'key_grant':
        // Only for the caller of a request this extension is serving: never a tenant it names.
        return need('keyGrant')(this.callerOf(m.requestId), m.role, m.ttlSeconds, m.audience);
      case 'mint_key':
        return need('mintKey')(m.grant, m.label, m.ttlSeconds);
      case 'revoke_key':
        return need('revokeKey')(m.keyHash);
      case 'route_chunk':
        return this.streams.chunk(String(m.request), typeof m.data === 'string' ? m.data : undefined, m.end === true);
      case 'ready':
        this.acceptsAttachments = m.attachments === true;
        return this.options.onReady?.({ schemaVersion: m.schemaVersion ?? 0, ...(Array.isArray(m.routes) ? { routes: m.routes } : {}) });
      default:
        throw new RoostError('UNKNOWN_TYPE', `unknown message type "${type}"`);
    }
  }

  /** A reply that came as an attachment goes on as one, to an extension that takes them; decoded once otherwise. */
  private callReply(reply: CallReply): CallReply | WithAttachment {
    if (!reply.attachment) return reply;
    const encoding = reply.encoding ?? 'json';
    if (this.acceptsAttachments) return new WithAttachment({ status: reply.status, encoding }, reply.attachment);
    return { status: reply.status, body: decodeAttachment(reply.attachment, encoding) };
  }

  private callerOf(requestId: unknown): AuthContext {
    const auth = typeof requestId === 'string' ? this.inFlightAuth.get(requestId) : undefined;
    if (!auth) throw new RoostError('VALIDATION_ERROR', `requestId ${String(requestId)} is not a request in flight`);
    return auth;
  }

  /** A call runs as the caller of the request it serves, or as this extension acting for a tenant. */
  private callAuth(m: Record<string, any>): AuthContext {
    if (typeof m.requestId === 'string') {
      const auth = this.inFlightAuth.get(m.requestId);
      if (!auth) throw new RoostError('VALIDATION_ERROR', `call.requestId ${m.requestId} is not a request in flight`);
      return auth;
    }
    if (typeof m.tenantId === 'string') return { tenantId: m.tenantId, role: 'operator', actor: `extension:${this.name}` };
    throw new RoostError('VALIDATION_ERROR', 'call needs requestId (the request being served) or tenantId');
  }

  private warn(warning: PeerWarning): void {
    const second = Math.floor(Date.now() / 1000);
    if (second !== this.warnings.second) this.warnings = { second, count: 0 };
    if (++this.warnings.count > MAX_WARNINGS_PER_SECOND) return;
    this.options.services.log('warn', `[${this.name}] protocol: ${JSON.stringify(warning)}`);
  }
}

function normaliseAuth(auth: { tenantId: string; role?: AuthContext['role']; actor?: string }): AuthContext {
  return { tenantId: auth.tenantId, role: auth.role ?? 'operator', actor: auth.actor ?? 'agent' };
}
