// The pool of prepared sandboxes of this instance. Preparing one proves, with a trial run, that
// bubblewrap makes the sandbox's namespaces now; a session assigned a prepared sandbox starts its
// tools without that wait, and the pool is refilled behind it. An empty pool prepares on the spot
// (a cold assign). Without bubblewrap nothing is prepared and taking fails with the reason.
import { randomUUID } from 'node:crypto';
import { RoostError } from '../../protocol/errors.js';
import { probe, type Detection } from './bubblewrap.js';

export interface Prepared {
  id: string;
  prepareMs: number;
}

export interface Taken extends Prepared {
  warm: boolean;
}

export class SandboxPool {
  private readonly ready: Prepared[] = [];
  private preparing = 0;
  private prepared = 0;
  private warmAssigns = 0;
  private coldAssigns = 0;
  private lastPrepareMs: number | null = null;
  private closed = false;

  constructor(readonly tools: Detection, private readonly target: number, private readonly log: (message: string) => void) {}

  async take(): Promise<Taken> {
    const warm = this.ready.shift();
    if (warm) {
      this.warmAssigns++;
      this.refill();
      return { ...warm, warm: true };
    }
    const cold = await this.prepare();
    this.coldAssigns++;
    this.refill();
    return { ...cold, warm: false };
  }

  /** Prepares sandboxes in the background until `target` are ready. */
  refill(): void {
    if ('missing' in this.tools || this.closed) return;
    while (this.ready.length + this.preparing < this.target) {
      this.preparing++;
      this.prepare()
        .then((sandbox) => (this.closed ? undefined : this.ready.push(sandbox)))
        .catch((err: Error) => this.log(`preparing a sandbox failed: ${err.message}`))
        .finally(() => this.preparing--);
    }
  }

  stats() {
    const missing = 'missing' in this.tools ? this.tools.missing : null;
    return {
      available: missing === null,
      error: missing,
      bwrap: 'missing' in this.tools ? null : this.tools.bwrap,
      pool: { target: this.target, ready: this.ready.length, preparing: this.preparing, prepared: this.prepared, warmAssigns: this.warmAssigns, coldAssigns: this.coldAssigns, lastPrepareMs: this.lastPrepareMs },
    };
  }

  close(): void {
    this.closed = true;
    this.ready.length = 0;
  }

  private async prepare(): Promise<Prepared> {
    if ('missing' in this.tools) throw new RoostError('SANDBOX_UNAVAILABLE', `cannot sandbox a session: ${this.tools.missing}`, { status: 503 });
    const prepareMs = await probe(this.tools).catch((err: Error) => {
      throw new RoostError('SANDBOX_UNAVAILABLE', `cannot sandbox a session: ${err.message}`, { status: 503 });
    });
    this.prepared++;
    this.lastPrepareMs = Math.round(prepareMs * 100) / 100;
    return { id: `sbx_${randomUUID()}`, prepareMs };
  }
}
