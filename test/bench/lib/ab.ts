// Side-by-side HTTP comparison: two URLs, each warmed up, then driven in interleaved rounds
// (A B, B A, A B, …) so that drift on a shared machine falls on both sides alike. Each side's
// figures pool every round: requests over the time they took, latency percentiles over all samples,
// and the CPU time the kernel, the extension and the load generator spent per request.
import type { LoadGenerator } from './load.js';
import { cpuMs } from './proc.js';
import { summarize, type Summary } from './stats.js';

export interface AbSide {
  name: string;
  url: string;
}

export interface AbOptions {
  connections: number;
  rounds: number;
  roundMs: number;
  warmupMs: number;
  /** The extension process (its sandbox), whose CPU time, with its descendants', is read from /proc. */
  extensionPid: number;
}

export interface AbResult {
  name: string;
  throughput: number;
  latency: Summary;
  requests: number;
  seconds: number;
  kernelCpuUsPerRequest: number;
  extensionCpuUsPerRequest: number;
  loadGeneratorCpuUsPerRequest: number;
}

export async function compare(load: LoadGenerator, sides: [AbSide, AbSide], options: AbOptions): Promise<[AbResult, AbResult]> {
  const acc = sides.map(() => ({ latencies: [] as Float64Array[], ms: 0, kernelMs: 0, extensionMs: 0, clientMs: 0 }));
  const job = (side: AbSide, durationMs: number) => ({ url: side.url, connections: options.connections, durationMs });
  for (const side of sides) await load.run(job(side, options.warmupMs));
  for (let round = 0; round < options.rounds; round++) {
    const order = round % 2 === 0 ? [0, 1] : [1, 0];
    for (const i of order) {
      const side = sides[i]!;
      const kernelBefore = process.cpuUsage();
      const extensionBefore = cpuMs(options.extensionPid);
      const result = await load.run(job(side, options.roundMs));
      const kernel = process.cpuUsage(kernelBefore);
      const wrong = Object.keys(result.statuses).filter((status) => status !== '200');
      if (wrong.length > 0 || result.failures > 0) {
        throw new Error(`${side.name}: answered ${JSON.stringify(result.statuses)} with ${result.failures} socket failures`);
      }
      const a = acc[i]!;
      a.latencies.push(result.latencies);
      a.ms += result.elapsedMs;
      a.kernelMs += (kernel.user + kernel.system) / 1000;
      a.extensionMs += cpuMs(options.extensionPid) - extensionBefore;
      a.clientMs += result.cpuMs;
    }
  }
  return sides.map((side, i) => {
    const a = acc[i]!;
    const all = concat(a.latencies);
    const perRequest = (ms: number) => (ms * 1000) / all.length;
    return {
      name: side.name,
      throughput: all.length / (a.ms / 1000),
      latency: summarize(all),
      requests: all.length,
      seconds: a.ms / 1000,
      kernelCpuUsPerRequest: perRequest(a.kernelMs),
      extensionCpuUsPerRequest: perRequest(a.extensionMs),
      loadGeneratorCpuUsPerRequest: perRequest(a.clientMs),
    };
  }) as [AbResult, AbResult];
}

function concat(parts: Float64Array[]): Float64Array {
  const out = new Float64Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}
