// Model pulls run in the background; their progress is kept here and streamed on the bus.
import type { ExtensionContext } from '../../sdk/extension.js';
import type { OllamaClient } from './ollama.js';

export interface PullStatus {
  name: string;
  status: string;
  completed: number;
  total: number;
  percent: number;
  startedAt: string;
  finishedAt: string | null;
  error: string | null;
}

const KEEP_FINISHED_MS = 10 * 60_000;

export class Pulls {
  private readonly pulls = new Map<string, PullStatus>();

  list(): PullStatus[] {
    const now = Date.now();
    for (const [name, pull] of this.pulls) if (pull.finishedAt && now - Date.parse(pull.finishedAt) > KEEP_FINISHED_MS) this.pulls.delete(name);
    return [...this.pulls.values()];
  }

  /** Starts a pull unless one for the same model is running; returns its status. */
  start(name: string, client: OllamaClient, ctx: ExtensionContext): PullStatus {
    const running = this.pulls.get(name);
    if (running && !running.finishedAt) return running;
    const pull: PullStatus = { name, status: 'starting', completed: 0, total: 0, percent: 0, startedAt: new Date().toISOString(), finishedAt: null, error: null };
    this.pulls.set(name, pull);
    void this.run(pull, client, ctx);
    return pull;
  }

  private async run(pull: PullStatus, client: OllamaClient, ctx: ExtensionContext): Promise<void> {
    const publish = () => ctx.host.emit('localmodel.pulls', { type: 'localmodel_pull_progress', ...pull }, null);
    try {
      for await (const line of client.stream('/api/pull', { name: pull.name, stream: true }, AbortSignal.timeout(6 * 3600_000))) {
        if (typeof line.error === 'string') throw new Error(line.error);
        pull.status = String(line.status ?? pull.status);
        if (typeof line.total === 'number') pull.total = line.total;
        if (typeof line.completed === 'number') pull.completed = line.completed;
        pull.percent = pull.total > 0 ? Math.round((pull.completed / pull.total) * 1000) / 10 : pull.percent;
        publish();
      }
      if (pull.status !== 'success') throw new Error(`the pull ended with status "${pull.status}"`);
      pull.percent = 100;
    } catch (err) {
      pull.status = 'error';
      pull.error = (err as Error).message;
    }
    pull.finishedAt = new Date().toISOString();
    publish();
  }
}
