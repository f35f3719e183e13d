// A small HTTP load generator that runs in its own process, so the server under test does not share
// an event loop (or, on a 2-core machine, a core's worth of scheduling) with the client that loads it.
// The parent sends one job at a time over IPC; load-worker.ts runs it and sends back the latencies.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execaNode } from 'execa';

export interface LoadJob {
  url: string;
  /** Concurrent keep-alive connections, each with one request in flight. */
  connections: number;
  durationMs: number;
}

export interface LoadResult {
  /** Milliseconds from sending each request to reading the end of its response. */
  latencies: Float64Array;
  /** Responses by HTTP status. */
  statuses: Record<string, number>;
  /** Requests that failed at the socket level. */
  failures: number;
  elapsedMs: number;
  /** CPU time the load generator itself used. */
  cpuMs: number;
}

const worker = join(dirname(fileURLToPath(import.meta.url)), 'load-worker.ts');
const spawnWorker = () =>
  execaNode(worker, [], { nodeOptions: ['--import', 'tsx'], ipc: true, serialization: 'advanced', stdout: 'inherit', stderr: 'inherit', reject: false });

export class LoadGenerator {
  private readonly child = spawnWorker();

  get pid(): number {
    return this.child.pid!;
  }

  async run(job: LoadJob): Promise<LoadResult> {
    await this.child.sendMessage(job as unknown as Parameters<typeof this.child.sendMessage>[0]);
    return (await this.child.getOneMessage()) as unknown as LoadResult;
  }

  async close(): Promise<void> {
    this.child.disconnect();
    await this.child;
  }
}
