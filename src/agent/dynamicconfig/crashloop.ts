// Crash-loop accounting across restarts, beyond upstream: a configuration can load and validate and still
// keep the agent from ever becoming healthy (a port already taken, a path that does not exist). Upstream
// only rolls back on load/validate errors; we also count how many times in a row the agent started with
// the assigned source without reaching health, so the controller can fall back to last-known-good.
//
// One small record (meta/starts) holds the source being counted and the count. Counting a different
// source starts over at one. Every write is atomic, so a crash mid-write leaves the previous count.

import { readFile } from 'node:fs/promises';
import { writeFileAtomic } from '../../util/atomicfile.js';
import { cloneSource, sourcesEqual, type MaybeSource, type NodeConfigSource } from './source.js';

export const START_RECORD_FILE = 'starts';

export interface StartRecord {
  /** The source whose starts are being counted; undefined is the local config. */
  source: NodeConfigSource | undefined;
  /** Consecutive starts of `source` that have not (yet) been followed by a healthy report. */
  startsWithoutHealthy: number;
}

const NO_RECORD: StartRecord = { source: undefined, startsWithoutHealthy: 0 };

function decode(text: string): StartRecord {
  const raw: unknown = JSON.parse(text);
  if (typeof raw !== 'object' || raw === null) return NO_RECORD;
  const r = raw as { source?: unknown; startsWithoutHealthy?: unknown };
  const n = r.startsWithoutHealthy;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) return NO_RECORD;
  let source: NodeConfigSource | undefined;
  if (r.source !== null && r.source !== undefined) {
    const cm = (r.source as { configMap?: unknown }).configMap;
    if (typeof cm !== 'object' || cm === null) return NO_RECORD;
    const f = cm as Record<string, unknown>;
    const str = (k: string) => (typeof f[k] === 'string' ? f[k] : '');
    source = cloneSource({
      configMap: {
        namespace: str('namespace'),
        name: str('name'),
        uid: str('uid'),
        resourceVersion: str('resourceVersion'),
        kubeletConfigKey: str('kubeletConfigKey'),
      },
    });
  }
  return { source, startsWithoutHealthy: n };
}

/** The start ledger kept at `path` (the store's meta/starts). */
export class StartLedger {
  readonly path: string;

  constructor(path: string) {
    this.path = path;
  }

  /**
   * The current record. A missing or unreadable record counts as none: the ledger is advisory, and a
   * damaged one must never keep the agent from starting (it merely delays a rollback by a few starts).
   */
  async read(): Promise<StartRecord> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch {
      return NO_RECORD;
    }
    if (text.length === 0) return NO_RECORD;
    try {
      return decode(text);
    } catch {
      return NO_RECORD;
    }
  }

  private async write(record: StartRecord): Promise<void> {
    const body = { source: record.source ?? null, startsWithoutHealthy: record.startsWithoutHealthy };
    await writeFileAtomic(this.path, JSON.stringify(body) + '\n');
  }

  /** Counts one more start of `src` (one, if the ledger was counting another source); returns the count. */
  async recordStart(src: MaybeSource): Promise<number> {
    const cur = await this.read();
    const starts = sourcesEqual(cur.source, src) ? cur.startsWithoutHealthy + 1 : 1;
    await this.write({ source: src ? cloneSource(src) : undefined, startsWithoutHealthy: starts });
    return starts;
  }

  /** `src` reached health: its count goes back to zero. Writes only when something changes. */
  async recordHealthy(src: MaybeSource): Promise<void> {
    const cur = await this.read();
    if (sourcesEqual(cur.source, src) && cur.startsWithoutHealthy === 0) return;
    await this.write({ source: src ? cloneSource(src) : undefined, startsWithoutHealthy: 0 });
  }

  /**
   * `src`'s latest start ended in a clean stop (a signal, an exit to switch config) before it reached health:
   * a stop is not a crash, so that start no longer counts.
   */
  async recordCleanStop(src: MaybeSource): Promise<void> {
    const cur = await this.read();
    if (!sourcesEqual(cur.source, src) || cur.startsWithoutHealthy === 0) return;
    await this.write({
      source: src ? cloneSource(src) : undefined,
      startsWithoutHealthy: cur.startsWithoutHealthy - 1,
    });
  }

  /** Consecutive unhealthy starts of `src`; zero when the ledger is counting another source. */
  async startsWithoutHealthy(src: MaybeSource): Promise<number> {
    const cur = await this.read();
    return sourcesEqual(cur.source, src) ? cur.startsWithoutHealthy : 0;
  }
}
