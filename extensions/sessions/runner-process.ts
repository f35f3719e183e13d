// The extension's side of one agent runner child. Spawning (a scrubbed environment, node loading its
// SDKs) and starting (`init` with the session's config, then `ready`) are separate steps, so a spare
// runner can be spawned ahead of need (runner-pool.ts). Its events, approval questions and logs come
// back over the same cli-v1 link. `stop()` returns only once the process is gone.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PluginChild, type ChildExit } from '../../lib/child.js';
import { RoostError } from '../../protocol/errors.js';
import { PROTOCOL, type InitMessage, type TraceContext, type WireSpan } from '../../protocol/messages.js';
import { runnableEntry } from '../../lib/paths.js';
import type { DriverName } from '../../lib/providers/index.js';
import type { SandboxGrant } from '../../lib/session-sandbox.js';
import type { ApprovalAnswer, ApprovalAsk, ExternalToolCall, ExternalToolResult, ReadyInfo, RunnerConfig, RunnerEvent, TurnReply, TurnRequest } from './runner/protocol.js';

export interface RunnerHandlers {
  onEvent(event: RunnerEvent): void;
  onApproval(ask: ApprovalAsk): Promise<ApprovalAnswer>;
  /** Runs an external MCP server's tool the runner was offered (already approved). */
  onExternalTool(call: ExternalToolCall): Promise<ExternalToolResult>;
  /** The session's sandbox (extensions/sandbox), or null when it runs unsandboxed. */
  onSandbox(): Promise<SandboxGrant | null>;
  /** Spans the runner ended (a model call), passed on to the host: sent only once a turn carried a trace context. */
  onSpans(spans: WireSpan[]): void;
  /** `expected` is false when the runner died on its own (a crash, a kill -9). */
  onExit(exit: ChildExit, expected: boolean): void;
  log(level: string, message: string): void;
}

const READY_TIMEOUT_MS = 20_000;
const ENV_PASSED = ['PATH', 'HOME', 'LANG', 'LC_ALL', 'TZ', 'TMPDIR', 'NODE_ENV'];

export class RunnerProcess {
  private readonly child: PluginChild;
  private readonly stderr: string[] = [];
  private expected = false;
  private log: RunnerHandlers['log'] | undefined;
  /** Settles once a spare has loaded what it preloads (or has exited). */
  readonly warm: Promise<void>;

  /** `preload`: the providers whose SDK a spare loads while it waits for a session. */
  constructor(private readonly pluginDir: string, preload: readonly DriverName[] = []) {
    const env: Record<string, string | undefined> = Object.fromEntries(ENV_PASSED.filter((n) => process.env[n] !== undefined).map((n) => [n, process.env[n]]));
    if (preload.length > 0) env.ROOST_RUNNER_PRELOAD = preload.join(',');
    this.child = new PluginChild(runnableEntry(join(pluginDir, 'runner', 'main.ts')), [], {
      // The working directory may not exist yet (the runner creates a project-less session's own).
      cwd: tmpdir(),
      env,
      onStderr: (line) => (this.log ? this.log('info', line) : this.keep(line)),
      onWarning: (w) => this.log?.('warn', `protocol: ${JSON.stringify(w)}`),
    });
    this.warm = new Promise((resolve) => {
      this.child.peer.handle('warm', () => resolve());
      void this.child.exited.then(() => resolve());
    });
  }

  /** What a spare runner said before it had a session to log under (the last lines only). */
  private keep(line: string): void {
    this.stderr.push(line);
    if (this.stderr.length > 50) this.stderr.shift();
  }

  get pid(): number | null {
    return this.child.pid ?? null;
  }

  get running(): boolean {
    return this.child.running;
  }

  /** Gives the runner its session and waits until it can take turns. */
  start(config: RunnerConfig, handlers: RunnerHandlers): Promise<ReadyInfo> {
    const tag = `[runner ${config.sessionId.slice(0, 8)}]`;
    this.log = (level, message) => handlers.log(level, `${tag} ${message}`);
    for (const line of this.stderr.splice(0)) this.log('info', line);
    const peer = this.child.peer;
    peer.handle('emit', (m) => handlers.onEvent(m.payload as RunnerEvent));
    peer.handle('confirm', (m) => handlers.onApproval(m as unknown as ApprovalAsk));
    peer.handle('external_tool', (m) => handlers.onExternalTool(m as unknown as ExternalToolCall));
    peer.handle('sandbox', () => handlers.onSandbox());
    peer.handle('spans', (m) => handlers.onSpans(Array.isArray(m.spans) ? (m.spans as WireSpan[]) : []));
    peer.handle('log', (m) => this.log?.(String(m.level ?? 'info'), String(m.message)));
    this.child.exited.then((exit) => handlers.onExit(exit, this.expected));
    const ready = new Promise<ReadyInfo>((resolve, reject) => {
      const timer = setTimeout(() => reject(new RoostError('INTERNAL', `the agent runner sent no "ready" within ${READY_TIMEOUT_MS / 1000} s`)), READY_TIMEOUT_MS);
      peer.handle('ready', (m) => {
        clearTimeout(timer);
        resolve(m as unknown as ReadyInfo);
      });
      this.child.exited.then((exit) => {
        clearTimeout(timer);
        reject(new RoostError('INTERNAL', `the agent runner exited during start-up (${exit.signal ?? `code ${exit.code}`})`));
      });
    });
    peer.notify(initMessage(this.pluginDir, config));
    return ready;
  }

  /** One turn; rejects with the runner's error (a provider failure) or EXTENSION_UNAVAILABLE if it died. */
  turn(input: TurnRequest['input'], trace?: TraceContext): Promise<TurnReply> {
    const request: TurnRequest = { input, ...(trace ? { trace } : {}) };
    return this.child.peer.request<TurnReply>({ type: 'turn', ...request });
  }

  /** Asks the runner to leave, then makes sure: SIGTERM after 0.5 s, SIGKILL after 1.5 s. */
  async stop(): Promise<void> {
    this.expected = true;
    if (!this.child.running) return;
    this.child.peer.notify({ type: 'cancel', reason: 'session runner stopped' });
    await this.child.stop({ closeGraceMs: 500, termGraceMs: 1_000 });
  }
}

function initMessage(pluginDir: string, config: RunnerConfig): InitMessage {
  return {
    type: 'init',
    protocol: PROTOCOL,
    args: [],
    project: { name: config.sessionId, root: config.workingDir, language: null, git: null },
    plugin: { name: 'session-runner', version: '0.1.0', dir: join(pluginDir, 'runner') },
    host: { name: 'roost-sessions', version: '0.1.0' },
    capabilities: {},
    config: config as unknown as Record<string, unknown>,
  };
}
