// A clock whose time moves only when a test says so; timers fire in due order during advance().

import { systemClock, type Clock, type TimerHandle } from '../../src/util/clock.js';

export class FakeClock implements Clock {
  private t: number;
  private seq = 0;
  private readonly timers = new Map<number, { due: number; fn: () => void }>();

  constructor(start = Date.UTC(2024, 0, 15, 10, 0, 0)) {
    this.t = start;
  }

  now(): Date {
    return new Date(this.t);
  }

  monotonicMs(): number {
    return this.t;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const id = ++this.seq;
    this.timers.set(id, { due: this.t + Math.max(0, ms), fn });
    return id;
  }

  clearTimeout(handle: TimerHandle): void {
    this.timers.delete(handle as number);
  }

  /** Moves time forward, firing every timer that falls due, earliest first. */
  advance(ms: number): void {
    const end = this.t + ms;
    for (let guard = 0; guard < 10_000; guard++) {
      let next: [number, { due: number; fn: () => void }] | undefined;
      for (const e of this.timers) if (e[1].due <= end && (next === undefined || e[1].due < next[1].due)) next = e;
      if (next === undefined) break;
      this.timers.delete(next[0]);
      this.t = next[1].due;
      next[1].fn();
    }
    this.t = end;
  }

  get pendingTimers(): number {
    return this.timers.size;
  }
}

/** The system clock, keeping count of the timers set on it and not yet fired or cleared. */
export class TimerCountingClock implements Clock {
  readonly pending = new Set<TimerHandle>();

  now(): Date {
    return systemClock.now();
  }

  monotonicMs(): number {
    return systemClock.monotonicMs();
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const handle = systemClock.setTimeout(() => {
      this.pending.delete(handle);
      fn();
    }, ms);
    this.pending.add(handle);
    return handle;
  }

  clearTimeout(handle: TimerHandle): void {
    this.pending.delete(handle);
    systemClock.clearTimeout(handle);
  }
}
