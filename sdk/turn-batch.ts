// Writes asked for during one turn of the event loop, done together when the turn ends: a burst of
// events (a create announced to several extensions at once, ten requests read from their sockets in one
// turn) becomes one statement and one commit instead of one each, and a quiet process pays one turn of
// wait. A batch that fills while the last one is written goes next, whole (up to `max` items).
export class TurnBatch<T> {
  private waiting: Array<{ item: T; done: () => void; failed: (err: unknown) => void }> = [];
  private draining: Promise<void> | undefined;

  /** write: stores the items, all or none; max: the most one call takes (a statement's bound-parameter limit). */
  constructor(
    private readonly write: (items: T[]) => Promise<unknown>,
    private readonly max = 100,
  ) {}

  /** Resolves once the batch holding `item` is written; rejects with that batch's failure. */
  add(item: T): Promise<void> {
    return new Promise((done, failed) => {
      this.waiting.push({ item, done, failed });
      this.draining ??= new Promise<void>((turn) => setImmediate(turn)).then(() => this.drain());
    });
  }

  /** Resolves once everything added so far is written (or failed): shutdown waits for it before closing the database. */
  async idle(): Promise<void> {
    await this.draining;
  }

  private async drain(): Promise<void> {
    while (this.waiting.length > 0) {
      const batch = this.waiting.splice(0, this.max);
      try {
        await this.write(batch.map((w) => w.item));
        for (const w of batch) w.done();
      } catch (err) {
        for (const w of batch) w.failed(err);
      }
    }
    this.draining = undefined;
  }
}
