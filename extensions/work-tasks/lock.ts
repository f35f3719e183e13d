// The repository lock: one running work task per repository. The row names the task holding it and
// expires unless its runner renews it, so a lock whose holder died frees itself; it lives in the
// database, so it survives a restart (the resumed task takes its own lock back).
import type { Knex } from 'knex';

export class RepoLocks {
  constructor(private readonly db: Knex) {}

  /** True when `taskId` holds the lock on `repo` now (taken, renewed, or taken over from an expired holder). */
  async acquire(repo: string, taskId: string, now: number, ttlMs: number): Promise<boolean> {
    const expires_at = now + ttlMs;
    const taken = await this.db('repo_locks')
      .where({ repo })
      .andWhere((q) => q.where('task_id', taskId).orWhere('expires_at', '<', now))
      .update({ task_id: taskId, expires_at });
    if (taken > 0) return true;
    try {
      await this.db('repo_locks').insert({ repo, task_id: taskId, expires_at });
      return true;
    } catch {
      return false; // another task holds it (the primary key refused a second row)
    }
  }

  async renew(taskIds: string[], now: number, ttlMs: number): Promise<void> {
    if (taskIds.length > 0) await this.db('repo_locks').whereIn('task_id', taskIds).update({ expires_at: now + ttlMs });
  }

  async release(taskId: string): Promise<void> {
    await this.db('repo_locks').where({ task_id: taskId }).delete();
  }
}
