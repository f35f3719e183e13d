// WebSocket clients in a process of their own (like load.ts for HTTP), so the server under test does
// not share an event loop with them. Each job opens N clients at once and answers when every one has
// been welcomed (or failed): the time from the first connect to the last `welcome`, and each client's
// connect-to-welcome time. ws-clients-worker.ts runs the jobs; the clients are closed after each.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execaNode } from 'execa';

export interface WsJob {
  url: string;
  clients: number;
}

export interface WsResult {
  welcomed: number;
  failed: number;
  /** From the first `new WebSocket` to the last `welcome` received. */
  firstConnectToLastWelcomeMs: number;
  /** Per client, from its own connect to its `welcome`. */
  connectToWelcome: Float64Array;
  firstError?: string;
}

const worker = join(dirname(fileURLToPath(import.meta.url)), 'ws-clients-worker.ts');

export class WsClients {
  private readonly child = execaNode(worker, [], {
    nodeOptions: ['--import', 'tsx'], ipc: true, serialization: 'advanced', stdout: 'inherit', stderr: 'inherit', reject: false,
  });

  get pid(): number {
    return this.child.pid!;
  }

  async run(job: WsJob): Promise<WsResult> {
    await this.child.sendMessage(job as unknown as Parameters<typeof this.child.sendMessage>[0]);
    return (await this.child.getOneMessage()) as unknown as WsResult;
  }

  async close(): Promise<void> {
    this.child.disconnect();
    await this.child;
  }
}
