// One async mutex for the checkpoint store: every change to meta/ and checkpoints/ (sync, trial promotion, reset,
// the start ledger) runs under it, so a read-decide-write sequence such as promoting the assigned config to
// last-known-good can never land between the two writes of a reset. Not re-entrant: a holder that needs more of
// the store is handed what it needs (CheckpointStore.exclusive). Re-entrancy would take AsyncLocalStorage, which on
// Node 20 turns on promise hooks for the whole process: a quarter of a simulated fleet's CPU.

export class AsyncMutex {
  private tail: Promise<void> = Promise.resolve();
  private waiting = 0;
  private readonly contentionWaiters: (() => void)[] = [];

  /** Runs `fn` once every earlier holder has finished; `fn` must not ask for the lock again. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    const previous = this.tail;
    let release!: () => void;
    this.tail = new Promise<void>((r) => (release = r));
    this.waiting++;
    for (const w of this.contentionWaiters.splice(0)) w();
    try {
      await previous;
    } finally {
      this.waiting--;
    }
    try {
      return await fn();
    } finally {
      release();
    }
  }

  /** Callers queued or holding the lock, counted from when they asked. */
  get queued(): number {
    return this.waiting;
  }

  /** Resolves the next time a caller asks for the lock (for tests that order operations deterministically). */
  whenRequested(): Promise<void> {
    return new Promise((r) => this.contentionWaiters.push(r));
  }
}
