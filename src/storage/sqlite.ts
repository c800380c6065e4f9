// The embedded SQLite backend of the Store: one database file owned by one process. `kv` holds the live
// state, `history` one row per revision (the change and the value it replaced) for watch-from-revision and
// list-at-revision, `meta` the compacted revision. Revisions are assigned in memory, which is sound only
// because the file is locked exclusively for the lifetime of the store (a second server on the same file
// fails to open instead of interleaving revisions).
//
// Group commit: the fsync of a commit, not the SQL, is what a write costs, so writes are queued and the
// queue is committed from a setImmediate, one transaction (and one fsync) for everything that arrived in
// that turn of the event loop: requests parsed in one poll phase run as separate callbacks, so a microtask
// would commit after each of them, while the check phase follows all of them without the delay a timer
// would add to a lone write. Each operation still gets its own revision and its own outcome; a promise
// settles only after its transaction committed with synchronous=FULL, so an acknowledged write survives a
// crash of the process or of the machine. A read issued while a write is queued sees the state before it,
// as etcd's do before a put is acknowledged; one issued after the acknowledgement sees the write.
//
// Watches are in-process: committed events are queued per watcher and delivered in batches from a
// setImmediate, never re-entrantly, so a write completes independently of its watchers.
//
// Invalid arguments (an empty or malformed key, a negative or future revision) are programming errors of
// the caller and throw RangeError; everything the caller must handle is a StoreError.

import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { klog } from '../util/klog.js';
import { ensurePrivateDatabase, PRIVATE_DIR_MODE } from '../util/privatefs.js';
import {
  checkKey,
  checkMoveTarget,
  checkPrefix,
  checkRevision,
  StoreError,
  type KeyValue,
  type ListOptions,
  type ListResult,
  type Store,
  type Watch,
  type WatchEvent,
  type WatchHandlers,
} from './store.js';
import { errorMessage } from '../util/errors.js';

export interface SqliteStoreOptions {
  /** The database file; its directory is created if missing. */
  path: string;
  /**
   * How many revisions of history to keep for watches and reads at older revisions; older history is
   * compacted automatically. Default 10,000. `Infinity` turns automatic compaction off.
   */
  historyLimit?: number;
  /** How long to wait for another process's lock on the file before failing with 'DKC_STORE_UNAVAILABLE'. Default 5 s. */
  busyTimeoutMs?: number;
  /** Receives what a watch handler threw; the store itself carries on. Default: logged. */
  onHandlerError?: (err: unknown) => void;
}

/**
 * 10,000 revisions: at the write rates of a busy small cluster (a few hundred writes/s from leases and
 * status) that is a minute or more of history, enough for a client to resume a watch after a brief
 * disconnect or to page through a large list at one revision. Clients fall back to a relist beyond that.
 * It also bounds the history to some tens of MB for typical object sizes (each row holds the new and the
 * replaced value).
 */
export const DEFAULT_HISTORY_LIMIT = 10_000;
const DEFAULT_BUSY_TIMEOUT_MS = 5_000;
/**
 * Bounds on one group-commit transaction, so that a burst of writes neither holds the event loop for one
 * long commit nor makes SQLite keep all of it in dirty pages and one WAL append. Writes beyond the bounds
 * go into the next transaction, on a later turn, after the earlier batch's callers have been answered.
 */
export const MAX_BATCH_OPERATIONS = 256;
export const MAX_BATCH_BYTES = 4 * 1024 * 1024;
/** Revisions one catch-up step reads, so that a watch from far back does not block the event loop. */
const CATCH_UP_SPAN = 2_000;
const SCHEMA_VERSION = 1;
const PUT = 0;
const DELETE = 1;

interface KvRow {
  key: string;
  value: Buffer;
  create_revision: number;
  mod_revision: number;
}

interface HistoryRow {
  revision: number;
  key: string;
  type: number;
  /** The written value (puts); null for deletes, whose deleted value is prev_value. */
  value: Buffer | null;
  create_revision: number;
  /** The value this change replaced or deleted; null when it created the key. */
  prev_value: Buffer | null;
  prev_mod_revision: number | null;
}

type Statement = Database.Statement<unknown[], unknown>;

interface QueuedWrite {
  readonly key: string;
  /** The written value; undefined for a delete or a move. */
  readonly value: Buffer | undefined;
  readonly kind: 'create' | 'update' | 'delete' | 'move';
  /** Where a move puts the value. */
  readonly target?: string;
  readonly expected: number | undefined;
  /** What the write counts against MAX_BATCH_BYTES. */
  readonly size: number;
  readonly resolve: (kv: KeyValue) => void;
  readonly reject: (err: StoreError) => void;
}

interface Applied {
  kv: KeyValue;
  event: WatchEvent;
  /** A move's second change, the delete of its source, one revision after `event`. */
  then?: { key: string; event: WatchEvent };
}

/** Counters of the group commit, for benchmarks and tests. */
export interface SqliteStoreStats {
  /** Write transactions committed. */
  batches: number;
  /** Writes committed (each took one revision, a move two). */
  writes: number;
  /** The most writes one transaction held. */
  largestBatch: number;
}

type WatcherState = 'catching-up' | 'live' | 'ended';

class Watcher {
  state: WatcherState = 'catching-up';
  cancelled = false;
  /** Events up to and including this revision have been queued or delivered. */
  after: number;
  queue: WatchEvent[] = [];
  pendingError: StoreError | undefined;
  readonly end: string | undefined;

  constructor(
    readonly prefix: string,
    fromRevision: number,
    readonly handlers: WatchHandlers,
  ) {
    this.after = fromRevision;
    this.end = prefixEnd(prefix);
  }
}

/** PRAGMA synchronous's values by number. */
const SYNCHRONOUS_NAMES: readonly string[] = ['OFF', 'NORMAL', 'FULL', 'EXTRA'];

export interface SqliteDurability {
  journalMode: string;
  synchronous: string;
  lockingMode: string;
}

export class SqliteStore implements Store {
  private revision: number;
  private compacted: number;
  private closed = false;
  private readonly historyLimit: number;
  /** Compaction runs once history exceeds the limit by this much, so its cost is amortised over many writes. */
  private readonly retentionSlack: number;
  private retentionScheduled = false;

  /** Live watchers grouped by prefix: an event is matched once per distinct prefix, not once per watcher. */
  private readonly live = new Map<string, Set<Watcher>>();
  private readonly catchingUp = new Set<Watcher>();
  private pending = new Set<Watcher>();
  private flushScheduled = false;
  private readonly onHandlerError: (err: unknown) => void;

  /** Writes not yet committed, in arrival order, from `queueHead` on. */
  private queue: QueuedWrite[] = [];
  private queueHead = 0;
  private commitScheduled = false;
  private readonly counters: SqliteStoreStats = { batches: 0, writes: 0, largestBatch: 0 };

  private readonly selectKv: Statement;
  private readonly txBatch: (writes: readonly QueuedWrite[], after: number) => (Applied | StoreError)[];
  private readonly txCompact: (rev: number) => void;
  private readonly statements = new Map<string, Statement>();

  private constructor(
    private readonly db: Database.Database,
    options: SqliteStoreOptions,
  ) {
    this.historyLimit = options.historyLimit ?? DEFAULT_HISTORY_LIMIT;
    this.retentionSlack = Number.isFinite(this.historyLimit)
      ? Math.max(1, Math.min(1_000, Math.floor(this.historyLimit / 10)))
      : 0;
    this.onHandlerError =
      options.onHandlerError ?? ((err) => klog.error(`storage: watch handler failed: ${errorMessage(err)}`));

    const meta = db.prepare(`SELECT value FROM meta WHERE name = 'compacted'`).pluck().get() as number | undefined;
    this.compacted = meta ?? 0;
    const newest = db.prepare('SELECT max(revision) FROM history').pluck().get() as number | null;
    // Compaction may have removed every history row, but never a revision newer than the compacted one.
    this.revision = Math.max(newest ?? 0, this.compacted);

    this.selectKv = db.prepare('SELECT key, value, create_revision, mod_revision FROM kv WHERE key = ?');
    const insertHistory = db.prepare(
      'INSERT INTO history (revision, key, type, value, create_revision, prev_value, prev_mod_revision) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    const insertKv = db.prepare(
      'INSERT INTO kv (key, value, create_revision, mod_revision) VALUES (?, ?, ?, ?) ON CONFLICT (key) DO NOTHING',
    );
    const updateKv = db.prepare('UPDATE kv SET value = ?, mod_revision = ? WHERE key = ?');
    const deleteKv = db.prepare('DELETE FROM kv WHERE key = ?');
    const deleteHistory = db.prepare('DELETE FROM history WHERE revision <= ?');
    const setCompacted = db.prepare(
      `INSERT INTO meta (name, value) VALUES ('compacted', ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value`,
    );

    // Every check that can refuse a write runs before its first statement that changes anything, so a
    // refused write leaves nothing behind and needs no savepoint: only its own promise fails. Later writes
    // of the batch read the state that includes the earlier ones, as if each were its own transaction.
    const apply = (w: QueuedWrite, rev: number): Applied => {
      const { key } = w;
      switch (w.kind) {
        case 'create': {
          const value = w.value!;
          if (insertKv.run(key, value, rev, rev).changes === 0)
            throw new StoreError('DKC_STORE_KEY_EXISTS', `key ${key} already exists`);
          insertHistory.run(rev, key, PUT, value, rev, null, null);
          const kv: KeyValue = { key, value, createRevision: rev, modRevision: rev };
          return { kv, event: { type: 'put', kv } };
        }
        case 'update': {
          const value = w.value!;
          const cur = this.current(key, w.expected);
          updateKv.run(value, rev, key);
          insertHistory.run(rev, key, PUT, value, cur.create_revision, cur.value, cur.mod_revision);
          const kv: KeyValue = { key, value, createRevision: cur.create_revision, modRevision: rev };
          return { kv, event: { type: 'put', kv, prevKv: toKeyValue(cur) } };
        }
        case 'delete': {
          const cur = this.current(key, w.expected);
          deleteKv.run(key);
          insertHistory.run(rev, key, DELETE, null, cur.create_revision, cur.value, cur.mod_revision);
          const kv: KeyValue = { key, value: cur.value, createRevision: cur.create_revision, modRevision: rev };
          return { kv, event: { type: 'delete', kv, prevKv: toKeyValue(cur) } };
        }
        case 'move': {
          // Two revisions in the one transaction: the put of the target, then the delete of the source.
          const to = w.target!;
          const cur = this.current(key, w.expected);
          if (this.selectKv.get(to) !== undefined)
            throw new StoreError('DKC_STORE_KEY_EXISTS', `key ${to} already exists`);
          insertKv.run(to, cur.value, rev, rev);
          insertHistory.run(rev, to, PUT, cur.value, rev, null, null);
          deleteKv.run(key);
          insertHistory.run(rev + 1, key, DELETE, null, cur.create_revision, cur.value, cur.mod_revision);
          const kv: KeyValue = { key: to, value: cur.value, createRevision: rev, modRevision: rev };
          const gone: KeyValue = { key, value: cur.value, createRevision: cur.create_revision, modRevision: rev + 1 };
          return {
            kv,
            event: { type: 'put', kv },
            then: { key, event: { type: 'delete', kv: gone, prevKv: toKeyValue(cur) } },
          };
        }
      }
    };
    // Revisions are counted here and published only after COMMIT, so a failed transaction leaves the
    // in-memory revision where it was and a refused write consumes none.
    this.txBatch = db.transaction((writes: readonly QueuedWrite[], after: number): (Applied | StoreError)[] => {
      let rev = after;
      const outcomes: (Applied | StoreError)[] = [];
      for (const w of writes) {
        try {
          const applied = apply(w, rev + 1);
          outcomes.push(applied);
          rev = applied.then?.event.kv.modRevision ?? applied.kv.modRevision;
        } catch (err) {
          if (!(err instanceof StoreError)) throw err;
          outcomes.push(err);
        }
      }
      return outcomes;
    });
    this.txCompact = db.transaction((rev: number): void => {
      deleteHistory.run(rev);
      setCompacted.run(rev);
    });
  }

  /** Opens (creating if needed) the database and takes its lock. */
  static open(options: SqliteStoreOptions): SqliteStore {
    const historyLimit = options.historyLimit ?? DEFAULT_HISTORY_LIMIT;
    if (!(historyLimit === Infinity || (Number.isSafeInteger(historyLimit) && historyLimit >= 1))) {
      throw new RangeError(`historyLimit must be a positive integer or Infinity, got ${historyLimit}`);
    }
    let db: Database.Database | undefined;
    try {
      mkdirSync(dirname(options.path), { recursive: true, mode: PRIVATE_DIR_MODE });
      ensurePrivateDatabase(options.path);
      db = new Database(options.path, { timeout: options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS });
      // Exclusive locking must precede the switch to WAL: the lock is then held until close and no
      // shared-memory index is needed, since no other connection may use the file.
      db.pragma('locking_mode = EXCLUSIVE');
      const mode = db.pragma('journal_mode = WAL', { simple: true });
      if (mode !== 'wal')
        throw new StoreError(
          'DKC_STORE_INTERNAL',
          `cannot put ${options.path} in WAL mode (journal_mode is ${String(mode)})`,
        );
      db.pragma('synchronous = FULL');
      const version = db.pragma('user_version', { simple: true }) as number;
      if (version > SCHEMA_VERSION) {
        throw new StoreError(
          'DKC_STORE_INTERNAL',
          `${options.path} has schema version ${version}, newer than this program's ${SCHEMA_VERSION}`,
        );
      }
      // An immediate write transaction takes the exclusive lock now rather than at the first write, so a
      // second process fails here, before it has told anyone it is serving.
      const init = db.transaction(() => {
        db!.exec(`
          CREATE TABLE IF NOT EXISTS kv (
            key TEXT PRIMARY KEY,
            value BLOB NOT NULL,
            create_revision INTEGER NOT NULL,
            mod_revision INTEGER NOT NULL
          ) WITHOUT ROWID;
          CREATE TABLE IF NOT EXISTS history (
            revision INTEGER PRIMARY KEY,
            key TEXT NOT NULL,
            type INTEGER NOT NULL,
            value BLOB,
            create_revision INTEGER NOT NULL,
            prev_value BLOB,
            prev_mod_revision INTEGER
          );
          CREATE TABLE IF NOT EXISTS meta (
            name TEXT PRIMARY KEY,
            value INTEGER NOT NULL
          ) WITHOUT ROWID;
          PRAGMA user_version = ${SCHEMA_VERSION};
        `);
      });
      init.immediate();
      const store = new SqliteStore(db, { ...options, historyLimit });
      klog.info('Opened SQLite storage', { path: options.path, ...store.durability() });
      return store;
    } catch (err) {
      db?.close();
      if (err instanceof StoreError) throw err;
      const code = sqliteCode(err);
      if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') {
        throw new StoreError('DKC_STORE_UNAVAILABLE', `${options.path} is in use by another process`, undefined, {
          cause: err,
        });
      }
      throw new StoreError('DKC_STORE_UNAVAILABLE', `cannot open ${options.path}: ${errorMessage(err)}`, undefined, {
        cause: err,
      });
    }
  }

  async currentRevision(): Promise<number> {
    this.assertOpen();
    return this.revision;
  }

  async compactedRevision(): Promise<number> {
    this.assertOpen();
    return this.compacted;
  }

  async get(key: string): Promise<KeyValue | undefined> {
    this.assertOpen();
    checkKey(key);
    const row = this.run(() => this.selectKv.get(key) as KvRow | undefined);
    return row && toKeyValue(row);
  }

  async list(prefix: string, options: ListOptions = {}): Promise<ListResult> {
    this.assertOpen();
    checkPrefix(prefix);
    const limit = options.limit ?? 0;
    if (!Number.isSafeInteger(limit) || limit < 0)
      throw new RangeError(`limit must be a non-negative integer, got ${limit}`);
    const at = options.revision || this.revision;
    checkRevision('revision', at, this.compacted);
    if (at > this.revision) throw new RangeError(`revision ${at} is newer than the current revision ${this.revision}`);

    // One lower bound only, so that SQLite seeks to it: later pages must not rescan earlier ones.
    const after = options.startAfter;
    const exclusive = after !== undefined && compareKeys(after, prefix) >= 0;
    const upper = prefixEnd(prefix);
    const params: Record<string, string | number> = {
      lower: exclusive ? after : prefix,
      limit: limit > 0 ? limit + 1 : -1,
    };
    if (upper !== undefined) params['upper'] = upper;
    const range = `key ${exclusive ? '>' : '>='} @lower${upper !== undefined ? ' AND key < @upper' : ''}`;

    let rows: KvRow[];
    if (at === this.revision) {
      const stmt = this.statement(
        `SELECT key, value, create_revision, mod_revision FROM kv WHERE ${range} ORDER BY key LIMIT @limit`,
      );
      rows = this.run(() => stmt.all(params) as KvRow[]);
    } else {
      // The state at `at`: keys untouched since then, plus, for every key changed since, the value its
      // first later change replaced (none if that change created it). History after `at` is complete
      // because `at` is not older than the compacted revision.
      params['at'] = at;
      const stmt = this.statement(
        `SELECT key, value, create_revision, mod_revision FROM (
           SELECT key, value, create_revision, mod_revision FROM kv WHERE ${range} AND mod_revision <= @at
           UNION ALL
           SELECT key, prev_value, create_revision, prev_mod_revision FROM (
             SELECT key, prev_value, create_revision, prev_mod_revision, min(revision)
             FROM history WHERE revision > @at AND ${range} GROUP BY key
           ) WHERE prev_mod_revision IS NOT NULL
         ) ORDER BY key LIMIT @limit`,
      );
      rows = this.run(() => stmt.all(params) as KvRow[]);
    }
    const more = limit > 0 && rows.length > limit;
    if (more) rows.length = limit;
    return { items: rows.map(toKeyValue), revision: at, more };
  }

  create(key: string, value: Uint8Array): Promise<KeyValue> {
    return this.enqueue('create', key, value, undefined);
  }

  update(key: string, value: Uint8Array, expectedModRevision?: number): Promise<KeyValue> {
    return this.enqueue('update', key, value, expectedModRevision);
  }

  delete(key: string, expectedModRevision?: number): Promise<KeyValue> {
    return this.enqueue('delete', key, undefined, expectedModRevision);
  }

  move(from: string, to: string, expectedModRevision?: number): Promise<KeyValue> {
    return this.enqueue('move', from, undefined, expectedModRevision, to);
  }

  /** The live connection's durability settings, as SQLite reports them (logged at open; crash tests assert them). */
  durability(): SqliteDurability {
    const synchronous = this.db.pragma('synchronous', { simple: true }) as number;
    return {
      journalMode: String(this.db.pragma('journal_mode', { simple: true })),
      synchronous: SYNCHRONOUS_NAMES[synchronous] ?? String(synchronous),
      lockingMode: String(this.db.pragma('locking_mode', { simple: true })),
    };
  }

  /** Group-commit counters since the store was opened. */
  stats(): SqliteStoreStats {
    return { ...this.counters };
  }

  watch(prefix: string, fromRevision: number, handlers: WatchHandlers): Watch {
    this.assertOpen();
    checkPrefix(prefix);
    checkRevision('fromRevision', fromRevision, this.compacted);
    const w = new Watcher(prefix, fromRevision, handlers);
    if (fromRevision >= this.revision) {
      this.goLive(w);
    } else {
      this.catchingUp.add(w);
      setImmediate(() => this.catchUp(w));
    }
    return { cancel: () => this.cancel(w) };
  }

  async compact(revision: number): Promise<void> {
    this.assertOpen();
    if (!Number.isSafeInteger(revision) || revision < 0)
      throw new RangeError(`revision must be a non-negative integer, got ${revision}`);
    if (revision > this.revision)
      throw new RangeError(`cannot compact at ${revision}, newer than the current revision ${this.revision}`);
    this.compactTo(revision);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // Writes already accepted are committed rather than dropped: their callers were not told to retry.
    while (this.queued() > 0) this.commitBatch(this.takeBatch());
    // Committed events still queued are delivered first: a watcher sees every write it could have seen.
    this.flush();
    const err = new StoreError('DKC_STORE_UNAVAILABLE', 'the store was closed');
    for (const group of this.live.values()) for (const w of group) this.end(w, err);
    for (const w of this.catchingUp) this.end(w, err);
    this.flush();
    this.db.close();
  }

  // ---- writes ----

  private enqueue(
    kind: QueuedWrite['kind'],
    key: string,
    value: Uint8Array | undefined,
    expected: number | undefined,
    target?: string,
  ): Promise<KeyValue> {
    return new Promise<KeyValue>((resolve, reject) => {
      // Throwing here rejects the promise, as the checks of an async method would.
      this.assertOpen();
      checkKey(key);
      if (target !== undefined) checkMoveTarget(key, target);
      const bytes = value === undefined ? undefined : ownCopy(value);
      const size = key.length + (target?.length ?? 0) + (bytes?.length ?? 0);
      this.queue.push({
        key,
        value: bytes,
        kind,
        expected,
        ...(target !== undefined ? { target } : {}),
        size,
        resolve,
        reject,
      });
      this.scheduleCommit();
    });
  }

  private queued(): number {
    return this.queue.length - this.queueHead;
  }

  private scheduleCommit(): void {
    if (this.commitScheduled) return;
    this.commitScheduled = true;
    setImmediate(() => {
      this.commitScheduled = false;
      // close() has committed whatever was queued.
      if (this.closed) return;
      this.commitBatch(this.takeBatch());
      if (this.queued() > 0) this.scheduleCommit();
    });
  }

  /** The oldest queued writes, as many as the batch bounds allow (at least one, however large). */
  private takeBatch(): QueuedWrite[] {
    const start = this.queueHead;
    let end = start;
    let bytes = 0;
    while (end < this.queue.length && end - start < MAX_BATCH_OPERATIONS) {
      const size = this.queue[end]!.size;
      if (end > start && bytes + size > MAX_BATCH_BYTES) break;
      bytes += size;
      end++;
    }
    const batch = this.queue.slice(start, end);
    if (end === this.queue.length) {
      this.queue = [];
      this.queueHead = 0;
    } else if (end > 4 * MAX_BATCH_OPERATIONS && end * 2 > this.queue.length) {
      // Drop the consumed front now and then instead of shifting the array per batch.
      this.queue = this.queue.slice(end);
      this.queueHead = 0;
    } else {
      this.queueHead = end;
    }
    return batch;
  }

  /** Commits `batch` in one transaction, then publishes and settles each write in revision order. */
  private commitBatch(batch: readonly QueuedWrite[]): void {
    if (batch.length === 0) return;
    let outcomes: (Applied | StoreError)[];
    try {
      outcomes = this.txBatch(batch, this.revision);
    } catch (err) {
      // Rolled back: no write of the batch happened, whatever its own checks said.
      for (const w of batch) w.reject(this.storeErrorFrom(err));
      return;
    }
    let committed = 0;
    for (let i = 0; i < batch.length; i++) {
      const outcome = outcomes[i]!;
      if (outcome instanceof StoreError) continue;
      this.revision = outcome.kv.modRevision;
      committed++;
      this.committed(outcome.kv.key, outcome.event);
      if (outcome.then) {
        this.revision = outcome.then.event.kv.modRevision;
        this.committed(outcome.then.key, outcome.then.event);
      }
    }
    this.counters.batches++;
    this.counters.writes += committed;
    this.counters.largestBatch = Math.max(this.counters.largestBatch, batch.length);
    this.scheduleRetention();
    // Watchers were queued their events first; settling last means a caller that reacts to its result
    // finds the store's revision and the watch queues already past its write.
    for (let i = 0; i < batch.length; i++) {
      const outcome = outcomes[i]!;
      if (outcome instanceof StoreError) batch[i]!.reject(outcome);
      else batch[i]!.resolve(outcome.kv);
    }
  }

  /** The key's row inside a write transaction, after the existence and compare-and-swap checks. */
  private current(key: string, expected: number | undefined): KvRow {
    const cur = this.selectKv.get(key) as KvRow | undefined;
    if (!cur) throw new StoreError('DKC_STORE_NOT_FOUND', `key ${key} not found`);
    if (expected !== undefined && cur.mod_revision !== expected) {
      throw new StoreError(
        'DKC_STORE_CONFLICT',
        `key ${key} is at revision ${cur.mod_revision}, not ${expected}`,
        cur.mod_revision,
      );
    }
    return cur;
  }

  private committed(key: string, event: WatchEvent): void {
    const rev = event.kv.modRevision;
    for (const [prefix, group] of this.live) {
      if (!key.startsWith(prefix)) continue;
      for (const w of group) {
        // Only a watch that started from a future revision can be ahead of a fresh commit.
        if (rev <= w.after) continue;
        w.queue.push(event);
        w.after = rev;
        this.pending.add(w);
      }
    }
    if (this.pending.size > 0) this.scheduleFlush();
  }

  private scheduleRetention(): void {
    if (
      !this.retentionScheduled &&
      Number.isFinite(this.historyLimit) &&
      this.revision - this.compacted >= this.historyLimit + this.retentionSlack
    ) {
      this.retentionScheduled = true;
      // Off the write's own path: the write that crosses the threshold should not pay for the deletion.
      setImmediate(() => {
        this.retentionScheduled = false;
        if (this.closed) return;
        try {
          this.compactTo(this.revision - this.historyLimit);
        } catch (err) {
          klog.error(`storage: automatic compaction failed: ${errorMessage(err)}`);
        }
      });
    }
  }

  private compactTo(revision: number): void {
    if (revision <= this.compacted) return;
    this.run(() => this.txCompact(revision));
    this.compacted = revision;
    const err = new StoreError(
      'DKC_STORE_COMPACTED',
      `the watch fell behind the compacted revision ${revision}`,
      revision,
    );
    for (const w of this.catchingUp) if (w.after < revision) this.end(w, err);
  }

  // ---- watch delivery ----

  private catchUp(w: Watcher): void {
    if (w.state !== 'catching-up' || this.closed) return;
    if (w.after < this.compacted) {
      this.end(
        w,
        new StoreError(
          'DKC_STORE_COMPACTED',
          `the watch fell behind the compacted revision ${this.compacted}`,
          this.compacted,
        ),
      );
      return;
    }
    const upto = Math.min(this.revision, w.after + CATCH_UP_SPAN);
    const stmt = this.statement(
      `SELECT revision, key, type, value, create_revision, prev_value, prev_mod_revision FROM history
       WHERE revision > @from AND revision <= @upto AND key >= @prefix${w.end !== undefined ? ' AND key < @end' : ''}
       ORDER BY revision`,
    );
    const params: Record<string, string | number> = { from: w.after, upto, prefix: w.prefix };
    if (w.end !== undefined) params['end'] = w.end;
    let rows: HistoryRow[];
    try {
      rows = this.run(() => stmt.all(params) as HistoryRow[]);
    } catch (err) {
      this.end(
        w,
        err instanceof StoreError
          ? err
          : new StoreError('DKC_STORE_INTERNAL', errorMessage(err), undefined, { cause: err }),
      );
      return;
    }
    for (const row of rows) w.queue.push(toEvent(row));
    w.after = upto;
    if (rows.length > 0) {
      this.pending.add(w);
      this.scheduleFlush();
    }
    // Commits are synchronous on this thread, so nothing can commit between reading history up to the
    // current revision and joining the live set: no gap, no duplicate.
    if (upto >= this.revision) {
      this.catchingUp.delete(w);
      this.goLive(w);
    } else {
      setImmediate(() => this.catchUp(w));
    }
  }

  private goLive(w: Watcher): void {
    w.state = 'live';
    let group = this.live.get(w.prefix);
    if (!group) this.live.set(w.prefix, (group = new Set()));
    group.add(w);
  }

  /** Stops a watcher; with an error, it is told after its queued events. */
  private end(w: Watcher, err?: StoreError): void {
    if (w.state === 'ended') return;
    if (w.state === 'live') {
      const group = this.live.get(w.prefix);
      group?.delete(w);
      if (group?.size === 0) this.live.delete(w.prefix);
    } else {
      this.catchingUp.delete(w);
    }
    w.state = 'ended';
    if (err) {
      w.pendingError = err;
      this.pending.add(w);
      this.scheduleFlush();
    }
  }

  private cancel(w: Watcher): void {
    w.cancelled = true;
    w.queue = [];
    this.end(w);
  }

  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      this.flush();
    });
  }

  /**
   * Hands each watcher its queued events in one batch. Events a handler causes (by writing) land in a new
   * batch delivered by the next flush, so handlers are never re-entered and order holds per watcher.
   */
  private flush(): void {
    const batch = this.pending;
    this.pending = new Set();
    for (const w of batch) {
      if (w.cancelled) continue;
      const events = w.queue;
      w.queue = [];
      if (events.length > 0) this.callHandler(() => w.handlers.onEvents(events));
      const err = w.pendingError;
      if (err && !w.cancelled) {
        w.pendingError = undefined;
        w.cancelled = true;
        this.callHandler(() => w.handlers.onError(err));
      }
    }
  }

  private callHandler(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      try {
        this.onHandlerError(err);
      } catch {
        // The error reporter failing must not stop delivery to the other watchers either.
      }
    }
  }

  // ---- helpers ----

  private statement(sql: string): Statement {
    let stmt = this.statements.get(sql);
    if (!stmt) this.statements.set(sql, (stmt = this.db.prepare(sql)));
    return stmt;
  }

  private assertOpen(): void {
    if (this.closed) throw new StoreError('DKC_STORE_UNAVAILABLE', 'the store is closed');
  }

  /** Runs database work, turning SQLite's exceptions into StoreErrors. */
  private run<T>(fn: () => T): T {
    try {
      return fn();
    } catch (err) {
      throw this.storeErrorFrom(err);
    }
  }

  private storeErrorFrom(err: unknown): StoreError {
    if (err instanceof StoreError) return err;
    const code = sqliteCode(err);
    if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') {
      return new StoreError('DKC_STORE_UNAVAILABLE', `database busy: ${errorMessage(err)}`, undefined, { cause: err });
    }
    if (!this.db.open) return new StoreError('DKC_STORE_UNAVAILABLE', 'the store is closed', undefined, { cause: err });
    return new StoreError('DKC_STORE_INTERNAL', `database error: ${errorMessage(err)}`, undefined, { cause: err });
  }
}

export async function openSqliteStore(options: SqliteStoreOptions): Promise<Store> {
  return SqliteStore.open(options);
}

function toKeyValue(row: KvRow): KeyValue {
  return { key: row.key, value: row.value, createRevision: row.create_revision, modRevision: row.mod_revision };
}

function toEvent(row: HistoryRow): WatchEvent {
  const prevKv: KeyValue | undefined =
    row.prev_mod_revision === null
      ? undefined
      : {
          key: row.key,
          value: row.prev_value!,
          createRevision: row.create_revision,
          modRevision: row.prev_mod_revision,
        };
  if (row.type === DELETE) {
    const kv: KeyValue = {
      key: row.key,
      value: row.prev_value!,
      createRevision: row.create_revision,
      modRevision: row.revision,
    };
    return prevKv ? { type: 'delete', kv, prevKv } : { type: 'delete', kv };
  }
  const kv: KeyValue = {
    key: row.key,
    value: row.value!,
    createRevision: row.create_revision,
    modRevision: row.revision,
  };
  return prevKv ? { type: 'put', kv, prevKv } : { type: 'put', kv };
}

/** A copy the caller cannot mutate after the write, since the same bytes go out to every watcher. */
function ownCopy(value: Uint8Array): Buffer {
  return Buffer.from(value);
}

/**
 * The smallest string greater than every string starting with `prefix`, in the order SQLite compares
 * TEXT (UTF-8 bytes, which is code point order); undefined when there is none (empty prefix, or only
 * U+10FFFF). Incrementing the last code point is enough because UTF-8 preserves code point order.
 */
function prefixEnd(prefix: string): string | undefined {
  const cps = Array.from(prefix, (c) => c.codePointAt(0)!);
  while (cps.length > 0) {
    const last = cps.pop()!;
    if (last < 0x10ffff) {
      cps.push(last === 0xd7ff ? 0xe000 : last + 1);
      return String.fromCodePoint(...cps);
    }
  }
  return undefined;
}

/** Code point order on well-formed strings, which JavaScript's `<` (UTF-16 code units) is not. */
function compareKeys(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}

/** Moves surrogates above the rest of the BMP, where the code points they encode belong. */
function codePointRank(unit: number): number {
  if (unit < 0xd800) return unit;
  return unit >= 0xe000 ? unit - 0x800 : unit + 0x2000;
}

function sqliteCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}
