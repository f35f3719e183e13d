// The agent runner: a child process of the sessions extension, one per live session, speaking cli-v1
// on stdin/stdout. It holds one context of the conversation and drives the model turn by turn; the
// extension kills it and starts a fresh one (with a summary) to reset the context.
import { mkdir } from 'node:fs/promises';
import { RoostError } from '../../../protocol/errors.js';
import type { InitMessage } from '../../../protocol/messages.js';
import { Peer } from '../../../protocol/peer.js';
import { createDriver, isProviderName, preloadDriver, tracedDriver } from '../../../lib/providers/index.js';
import type { FrameTracing } from '../../../sdk/tracing.js';
import type { SandboxGrant } from '../../../lib/session-sandbox.js';
import { AgentLoop, type HostLink } from './agent.js';
import { ExternalTools } from './external.js';
import { McpTools } from './mcp.js';
import type { ApprovalAnswer, ReadyInfo, RunnerConfig, TurnReply } from './protocol.js';
import { Shell } from './shell.js';
import { Toolbox } from './toolbox.js';
import { Workspace } from './workspace.js';

/** The process's one conversation: its state lives here, from `init` to the process's end. */
function serve(): void {
  const peer = new Peer(process.stdout, { onWarning: (w) => process.stderr.write(`protocol warning: ${JSON.stringify(w)}\n`) });
  let loop: AgentLoop | undefined;
  let shell: Shell | undefined;
  let mcp: McpTools | null = null;
  let busy = false;
  /** Started (sdk/tracing.ts imported) by the first turn that carries a trace context; its spans go to the host in `spans`. */
  let tracing: FrameTracing | undefined;

  const link: HostLink = {
    emit: (event) => peer.notify({ type: 'emit', topic: 'session.event', payload: event }),
    async approve(ask) {
      try {
        return await peer.request<ApprovalAnswer>({ type: 'confirm', ...ask });
      } catch (err) {
        return { allowed: false, reason: `the approval could not be obtained (${(err as Error).message})` };
      }
    },
  };

  peer.handle('init', async (message) => {
    const config = (message as unknown as InitMessage).config as unknown as RunnerConfig;
    try {
      if (config.createWorkingDir) await mkdir(config.workingDir, { recursive: true });
      const ws = await Workspace.open(config.workingDir, config.protectedFiles);
      shell = new Shell(ws, config.env);
      let mcpError: string | undefined;
      if (config.mcp?.tools) mcp = McpTools.handed(config.mcp.url, config.mcp.token, config.mcp.tools);
      else if (config.mcp) {
        mcp = await McpTools.connect(config.mcp.url, config.mcp.token).catch((err: Error) => {
          mcpError = `the server's MCP tools are unavailable: ${err.message}`;
          return null;
        });
      }
      const external = config.externalTools?.length ? new ExternalTools(config.externalTools, peer) : null;
      const sandbox = config.sandboxLookup ? { protectedFiles: config.protectedFiles, current: () => peer.request<SandboxGrant | null>({ type: 'sandbox' }) } : null;
      const toolbox = new Toolbox(ws, shell, mcp, external, sandbox, config.localTools);
      loop = new AgentLoop(tracedDriver(createDriver(config.provider), () => tracing?.tracer), toolbox, link, { systemPrompt: config.systemPrompt, summary: config.summary, maxTokens: config.maxTokens });
      const ready: ReadyInfo = { tools: toolbox.specs.map((s) => s.name), ...(mcpError ? { mcpError } : {}) };
      peer.notify({ type: 'ready', ...ready });
      // A runner started cold loads its provider's SDK now, while the session records its start, not at the first turn.
      void preloadDriver(config.provider.provider);
    } catch (err) {
      process.stderr.write(`runner start-up failed: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    }
  });

  peer.handle('turn', async (message): Promise<TurnReply> => {
    if (!loop) throw new RoostError('EXTENSION_UNAVAILABLE', 'the runner has not been initialised');
    if (busy) throw new RoostError('CONFLICT', 'a turn is already running');
    busy = true;
    const turn = () => loop!.turn(typeof message.input === 'string' ? message.input : null);
    try {
      if (message.trace === undefined) return await turn();
      tracing ??= (await import('../../../sdk/tracing.js')).startFrameTracing((spans) => peer.notify({ type: 'spans', spans }));
      return await tracing.serve(message.trace, 'agent turn', {}, turn);
    } finally {
      busy = false;
    }
  });

  peer.handle('cancel', () => leave(0));

  /** Leaves at once: the model call and any command are abandoned (commands are killed). */
  function leave(code: number): void {
    loop?.abort();
    shell?.killAll();
    void mcp?.close();
    process.exit(code);
  }

  process.on('SIGTERM', () => leave(0));
  process.stdin.on('end', () => leave(0));
  peer.attach(process.stdin);
  // A spare runner (runner-pool.ts) does while it waits what a session's first turn would: it loads the
  // SDKs of the providers sessions used lately; then says so.
  setImmediate(async () => {
    const providers = (process.env.ROOST_RUNNER_PRELOAD ?? '').split(',').filter(isProviderName);
    if (providers.length === 0) return;
    await Promise.all(providers.map((name) => preloadDriver(name)));
    peer.notify({ type: 'warm' });
  });
}

serve();
