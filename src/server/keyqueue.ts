// Writes to one key, one at a time within this server. Read-modify-write cycles on the same object otherwise race
// each other inside one process and lose to conflicts they caused themselves (200 concurrent patches of one
// ConfigMap exhausted any retry bound); queued, each reads what the previous one wrote. Conflicts with other
// replicas (etcd) remain, and the optimistic retry handles those.

export class KeyQueue {
  private readonly tails = new Map<string, Promise<void>>();

  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((r) => (release = r));
    const tail = previous.then(() => mine);
    this.tails.set(key, tail);
    try {
      await previous;
      return await fn();
    } finally {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }

  /** Keys with a write running or queued (for tests: the map must not grow without bound). */
  get size(): number {
    return this.tails.size;
  }
}
