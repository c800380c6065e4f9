// What watches may cost the server, in total and per user. Each watch event is encoded once however many watchers
// receive it (the encoded line is shared); the bytes every watcher has buffered count against one budget, and
// when the sum is over it the watchers furthest behind are dropped with 410 first (their clients relist, as from
// any expired watch); and a user may hold only so many watches at once (429 beyond, as kube-apiserver's
// max-requests-inflight answers), so one client cannot pin the server's memory with thousands of them.

import { errors } from '../api/errors.js';
import type { KubeObject } from '../api/types.js';

export interface WatchLimitsOptions {
  /** Concurrent watches one user may hold. */
  maxWatchesPerUser: number;
  /** Bytes all watchers together may have buffered. */
  bufferBudget: number;
}

/** One open watch, as the limits see it. */
export interface WatchEntry {
  readonly user: string;
  buffered: number;
  /** Ends the watch with 410 (the budget needs its bytes). */
  readonly drop: () => void;
}

export class WatchLimits {
  private readonly perUser = new Map<string, number>();
  private readonly entries = new Set<WatchEntry>();
  private total = 0;

  constructor(private readonly options: WatchLimitsOptions) {}

  /** Registers a watch for `user`, or throws 429 when the user already holds the maximum. */
  admit(user: string, drop: () => void): WatchEntry {
    const n = this.perUser.get(user) ?? 0;
    if (n >= this.options.maxWatchesPerUser) {
      throw errors.tooManyRequests(
        `too many concurrent watches for user ${JSON.stringify(user)} (at most ${this.options.maxWatchesPerUser}); retry later`,
        1,
      );
    }
    this.perUser.set(user, n + 1);
    const entry: WatchEntry = { user, buffered: 0, drop };
    this.entries.add(entry);
    return entry;
  }

  /** The watch ended: its slot and its bytes are free again. Idempotent. */
  release(entry: WatchEntry): void {
    if (!this.entries.delete(entry)) return;
    this.total -= entry.buffered;
    const n = (this.perUser.get(entry.user) ?? 1) - 1;
    if (n <= 0) this.perUser.delete(entry.user);
    else this.perUser.set(entry.user, n);
  }

  /** Records what a watch has buffered now; over budget, drops the watches furthest behind until it holds. */
  update(entry: WatchEntry, buffered: number): void {
    if (!this.entries.has(entry)) return;
    this.total += buffered - entry.buffered;
    entry.buffered = buffered;
    if (this.total <= this.options.bufferBudget) return;
    for (const victim of chooseVictims([...this.entries], this.total, this.options.bufferBudget)) {
      this.release(victim);
      victim.drop();
    }
  }

  get bufferedBytes(): number {
    return this.total;
  }

  watchesOf(user: string): number {
    return this.perUser.get(user) ?? 0;
  }
}

/** The watches to drop to bring `total` within `budget`: the largest buffers first. Pure. */
export function chooseVictims<E extends { buffered: number }>(entries: E[], total: number, budget: number): E[] {
  const out: E[] = [];
  for (const e of [...entries].sort((a, b) => b.buffered - a.buffered)) {
    if (total <= budget || e.buffered === 0) break;
    out.push(e);
    total -= e.buffered;
  }
  return out;
}

const encoded = new WeakMap<KubeObject, Map<string, string>>();
let encodeCount = 0;

/**
 * One watch event line (`{"type":…,"object":…}\n`), encoded once per object and event type and shared by every
 * watcher that receives it: 2,000 watchers of a 1 MB object then hold one string, not 2,000 copies.
 */
export function encodeWatchEvent(type: string, key: KubeObject, object: unknown = key): string {
  let byType = encoded.get(key);
  if (!byType) {
    byType = new Map();
    encoded.set(key, byType);
  }
  let line = byType.get(type);
  if (line === undefined) {
    line = JSON.stringify({ type, object }) + '\n';
    encodeCount++;
    byType.set(type, line);
  }
  return line;
}

/** How many event lines have been encoded so far (for tests of the sharing). */
export function watchEncodeCount(): number {
  return encodeCount;
}
