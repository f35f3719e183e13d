// Waiting for something to happen to a record (a delivery answered, a question closed), or for a time
// to pass, whichever comes first: `wait` parks a caller under the record's key, `wake` releases every
// caller parked there. Nothing is kept once nobody waits.
export class KeyedWaiters {
  private readonly waiters = new Map<string, Set<() => void>>();

  /** Resolves when `wake(key)` is called, or after `ms`. */
  wait(key: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const set = this.waiters.get(key) ?? new Set();
      this.waiters.set(key, set);
      const done = () => {
        clearTimeout(timer);
        set.delete(done);
        if (set.size === 0) this.waiters.delete(key);
        resolve();
      };
      const timer = setTimeout(done, ms);
      set.add(done);
    });
  }

  wake(key: string): void {
    for (const done of [...(this.waiters.get(key) ?? [])]) done();
  }
}
