// The etcd v3 backend of the Store, for several stateless server replicas over one etcd cluster. The Store
// contract was shaped after etcd, so this is mostly a translation: a key is the configured prefix plus the
// Store key, the value is stored as is, a KeyValue's revisions are etcd's own create/mod revisions, and every
// conditional write is one etcd transaction (create: create_revision == 0; update/delete: mod_revision ==
// expected), so replicas never need to coordinate with each other.
//
// Reads are linearizable (served through the leader's quorum), so a write acknowledged by one replica is
// visible to a read on any other. Lists at a past revision read etcd's MVCC history directly.
//
// Watches: one etcd watch stream per Store.watch, started at fromRevision + 1 with prev_kv. When the stream
// breaks (a member died, a leader election), it is resumed on any member from the revision after the last one
// delivered, which etcd's revision history makes gap-free and duplicate-free; only when that history is gone
// (compaction) or etcd stays unreachable is the watcher told to give up, and the server's watch cache relists.
//
// Compaction is etcd-wide, so replicas coordinate it the way kube-apiserver does: the compacted revision is
// recorded in the key `compact_rev_key` with a compare-and-swap, and only the replica whose swap succeeds
// asks etcd to compact. That key also answers compactedRevision(), which etcd itself does not expose.

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
import { systemClock, type Clock, type TimerHandle } from '../util/clock.js';
import { klog } from '../util/klog.js';
import type * as Etcd3Module from 'etcd3';
import { errorMessage } from '../util/errors.js';

export interface EtcdTlsOptions {
  /** PEM of the CA that signed the members' serving certificates. */
  caPem: Buffer;
  /** Client certificate and key, for members that require client authentication. */
  certPem?: Buffer;
  keyPem?: Buffer;
}

export interface EtcdStoreOptions {
  /** Client URLs of the members (http:// or https://). */
  endpoints: string[];
  /** Prepended to every key; lets several clusters share one etcd. Default: none. */
  prefix?: string;
  tls?: EtcdTlsOptions;
  /**
   * Compact automatically every this many ms, to the revision seen at the previous tick, so at least one interval
   * of history stays available to watches and paginated lists. 0 turns it off. Default 5 minutes (kube-apiserver's).
   */
  compactionIntervalMs?: number;
  /** Deadline of one unary request. Default 10 s. */
  requestTimeoutMs?: number;
  /** How long a broken watch keeps trying to resume before it reports 'DKC_STORE_UNAVAILABLE'. Default 30 s. */
  watchResumeTimeoutMs?: number;
  /** Receives what a watch handler threw. Default: logged. */
  onHandlerError?: (err: unknown) => void;
  /** Times a broken watch's resume window and backoff (monotonic side). Default: the system clock. */
  clock?: Clock;
}

export const DEFAULT_COMPACTION_INTERVAL_MS = 5 * 60_000;
/** The key the compacted revision is recorded under; kube-apiserver's name, so both agree on one etcd. */
export const COMPACT_REV_KEY = 'compact_rev_key';
const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;
const DEFAULT_WATCH_RESUME_TIMEOUT_MS = 30_000;
const MAX_RESUME_BACKOFF_MS = 2_000;

type Etcd3 = InstanceType<typeof Etcd3Module.Etcd3>;
type RawKeyValue = Etcd3Module.IKeyValue;
type WatchStream = Awaited<ReturnType<Etcd3Module.WatchClient['watch']>>;

const num = (s: string | number | undefined): number => Number(s ?? 0);

class EtcdWatch implements Watch {
  private stream: WatchStream | undefined;
  private cancelled = false;
  private ended = false;
  /** Every event up to this revision has been delivered. */
  private after: number;
  private failingSince: number | undefined;
  private attempt = 0;
  private retryTimer: TimerHandle = undefined;

  constructor(
    private readonly store: EtcdStore,
    private readonly start: Buffer,
    private readonly end: Buffer,
    fromRevision: number,
    private readonly handlers: WatchHandlers,
    private readonly resumeTimeoutMs: number,
    private readonly clock: Clock,
  ) {
    this.after = fromRevision;
  }

  open(): void {
    if (this.cancelled || this.ended) return;
    this.store
      .watchClient()
      .watch()
      .then((stream) => {
        if (this.cancelled || this.ended) {
          stream.cancel();
          return;
        }
        this.stream = stream;
        stream.on('data', (res: Etcd3Module.IWatchResponse) => this.onResponse(stream, res));
        stream.on('error', (err: unknown) => this.broken(stream, err));
        stream.on('end', () => this.broken(stream, new Error('watch stream ended')));
        stream.write({
          create_request: { key: this.start, range_end: this.end, start_revision: this.after + 1, prev_kv: true },
        });
      })
      .catch((err: unknown) => this.broken(undefined, err));
  }

  cancel(): void {
    if (this.cancelled) return;
    this.cancelled = true;
    this.close();
    this.store.forget(this);
  }

  /** Ends the watch with an error, told to the handler once. */
  fail(err: StoreError): void {
    if (this.cancelled || this.ended) return;
    this.ended = true;
    this.close();
    this.store.forget(this);
    this.store.callHandler(() => this.handlers.onError(err));
  }

  private close(): void {
    if (this.retryTimer !== undefined) this.clock.clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    const s = this.stream;
    this.stream = undefined;
    // Its listeners stay attached (an error after cancel() must not be thrown) but ignore a stream that is
    // no longer the current one.
    s?.cancel();
  }

  private onResponse(stream: WatchStream, res: Etcd3Module.IWatchResponse): void {
    if (stream !== this.stream || this.cancelled || this.ended) return;
    if (res.created && !res.canceled) {
      this.failingSince = undefined;
      this.attempt = 0;
    }
    if (res.canceled) {
      const compactRev = num(res.compact_revision);
      if (compactRev > 0) {
        this.store.noteCompacted(compactRev);
        this.fail(
          new StoreError(
            'DKC_STORE_COMPACTED',
            `the watch fell behind the compacted revision ${compactRev}`,
            compactRev,
          ),
        );
      } else {
        // Canceled for another reason (no leader, member shutting down): resume elsewhere.
        this.broken(stream, new Error(`watch canceled by etcd: ${res.cancel_reason || 'no reason given'}`));
      }
      return;
    }
    const events: WatchEvent[] = [];
    for (const ev of res.events ?? []) {
      const rev = num(ev.kv.mod_revision);
      // After a resume etcd starts at after + 1, so this only guards against a misbehaving peer.
      if (rev <= this.after) continue;
      const key = this.store.storeKey(ev.kv.key);
      if (key === undefined) continue;
      const prevKv = ev.prev_kv ? this.store.toKeyValue(key, ev.prev_kv) : undefined;
      if (ev.type === 'Delete') {
        // etcd's delete event carries no value; the Store contract gives the deleted one.
        const kv: KeyValue = {
          key,
          value: prevKv?.value ?? new Uint8Array(),
          createRevision: prevKv?.createRevision ?? 0,
          modRevision: rev,
        };
        events.push(prevKv ? { type: 'delete', kv, prevKv } : { type: 'delete', kv });
      } else {
        const kv = this.store.toKeyValue(key, ev.kv);
        events.push(prevKv ? { type: 'put', kv, prevKv } : { type: 'put', kv });
      }
    }
    // Advance even over filtered events, so a resume does not fetch them again.
    for (const ev of res.events ?? []) this.after = Math.max(this.after, num(ev.kv.mod_revision));
    if (events.length > 0) this.store.callHandler(() => this.handlers.onEvents(events));
  }

  private broken(stream: WatchStream | undefined, err: unknown): void {
    if (stream !== undefined && stream !== this.stream) return;
    if (this.cancelled || this.ended) return;
    this.close();
    if (this.store.isClosed()) {
      this.fail(new StoreError('DKC_STORE_UNAVAILABLE', 'the store was closed'));
      return;
    }
    const now = this.clock.monotonicMs();
    this.failingSince ??= now;
    if (now - this.failingSince >= this.resumeTimeoutMs) {
      this.fail(
        new StoreError(
          'DKC_STORE_UNAVAILABLE',
          `etcd watch could not be resumed for ${this.resumeTimeoutMs} ms: ${errorMessage(err)}`,
          undefined,
          { cause: err },
        ),
      );
      return;
    }
    const delay = Math.min(MAX_RESUME_BACKOFF_MS, 50 * 2 ** this.attempt++);
    klog.warning(`etcd watch broke (${errorMessage(err)}); resuming after revision ${this.after} in ${delay} ms`);
    this.retryTimer = this.clock.setTimeout(() => {
      this.retryTimer = undefined;
      this.open();
    }, delay);
  }
}

export class EtcdStore implements Store {
  private closed = false;
  private readonly prefix: Buffer;
  private knownCompacted = 0;
  private readonly watches = new Set<EtcdWatch>();
  private compactionTimer: NodeJS.Timeout | undefined;
  private lastTickRevision = 0;
  private readonly onHandlerError: (err: unknown) => void;

  private constructor(
    private readonly client: Etcd3,
    private readonly options: EtcdStoreOptions,
  ) {
    this.prefix = Buffer.from(options.prefix ?? '', 'utf8');
    this.onHandlerError =
      options.onHandlerError ?? ((err) => klog.error(`storage: watch handler failed: ${errorMessage(err)}`));
  }

  /** Connects and checks that etcd answers (fails with 'DKC_STORE_UNAVAILABLE' otherwise). */
  static async open(options: EtcdStoreOptions): Promise<EtcdStore> {
    if (!Array.isArray(options.endpoints) || options.endpoints.length === 0)
      throw new RangeError('at least one etcd endpoint is required');
    const { Etcd3 } = await import('etcd3');
    const timeout = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    const client = new Etcd3({
      hosts: options.endpoints,
      ...(options.tls
        ? {
            credentials: {
              rootCertificate: options.tls.caPem,
              ...(options.tls.keyPem ? { privateKey: options.tls.keyPem } : {}),
              ...(options.tls.certPem ? { certChain: options.tls.certPem } : {}),
            },
          }
        : {}),
      // gRPC takes a deadline in epoch milliseconds: the system's wall time by its contract, never a test's clock.
      defaultCallOptions: (ctx) => (ctx.isStream ? {} : { deadline: systemClock.now().getTime() + timeout }),
    });
    const store = new EtcdStore(client, options);
    try {
      store.knownCompacted = await store.compactedRevision();
    } catch (err) {
      client.close();
      throw err;
    }
    const interval = options.compactionIntervalMs ?? DEFAULT_COMPACTION_INTERVAL_MS;
    if (interval > 0) {
      store.compactionTimer = setInterval(() => void store.compactionTick(), interval);
      store.compactionTimer.unref();
    }
    return store;
  }

  // ---- Store ----

  async currentRevision(): Promise<number> {
    this.assertOpen();
    const res = await this.call(() => this.client.kv.range({ key: Buffer.from(COMPACT_REV_KEY), count_only: true }));
    return num(res.header.revision);
  }

  async compactedRevision(): Promise<number> {
    this.assertOpen();
    const res = await this.call(() => this.client.kv.range({ key: Buffer.from(COMPACT_REV_KEY) }));
    const kv = res.kvs[0];
    const recorded = kv ? Number(kv.value.toString('utf8')) || 0 : 0;
    this.noteCompacted(recorded);
    return this.knownCompacted;
  }

  async get(key: string): Promise<KeyValue | undefined> {
    this.assertOpen();
    checkKey(key);
    const res = await this.call(() => this.client.kv.range({ key: this.etcdKey(key) }));
    const kv = res.kvs[0];
    return kv && this.toKeyValue(key, kv);
  }

  async list(prefix: string, options: ListOptions = {}): Promise<ListResult> {
    this.assertOpen();
    checkPrefix(prefix);
    const limit = options.limit ?? 0;
    if (!Number.isSafeInteger(limit) || limit < 0)
      throw new RangeError(`limit must be a non-negative integer, got ${limit}`);
    const at = options.revision ?? 0;
    checkRevision('revision', at, at > 0 ? this.knownCompacted : 0); // 0: the current revision
    const start = this.rangeStart(prefix);
    const end = rangeEnd(this.etcdKey(prefix));
    let from = start;
    const after = options.startAfter;
    if (after !== undefined && Buffer.compare(Buffer.from(after, 'utf8'), Buffer.from(prefix, 'utf8')) >= 0) {
      // The smallest key greater than `after`.
      from = Buffer.concat([this.etcdKey(after), Buffer.from([0])]);
    }
    // The compaction marker can only fall inside a range when no prefix is configured; ask for one more then.
    const markerInRange = this.prefix.length === 0 && prefix.length === 0;
    const res = await this.call(() =>
      this.client.kv.range({
        key: from,
        range_end: end,
        ...(limit > 0 ? { limit: limit + (markerInRange ? 1 : 0) } : {}),
        ...(at > 0 ? { revision: at } : {}),
      }),
    );
    const items: KeyValue[] = [];
    for (const raw of res.kvs) {
      const key = this.storeKey(raw.key);
      if (key !== undefined) items.push(this.toKeyValue(key, raw));
    }
    let more = res.more;
    if (limit > 0 && items.length > limit) {
      items.length = limit;
      more = true;
    }
    return { items, revision: at > 0 ? at : num(res.header.revision), more };
  }

  async create(key: string, value: Uint8Array): Promise<KeyValue> {
    this.assertOpen();
    checkKey(key);
    const k = this.etcdKey(key);
    const v = Buffer.from(value);
    const res = await this.call(() =>
      this.client.kv.txn({
        compare: [{ key: k, target: 'Create', result: 'Equal', create_revision: 0 }],
        success: [{ request_put: { key: k, value: v } }],
      }),
    );
    if (!res.succeeded) throw new StoreError('DKC_STORE_KEY_EXISTS', `key ${key} already exists`);
    const rev = num(res.header.revision);
    return { key, value: v, createRevision: rev, modRevision: rev };
  }

  async update(key: string, value: Uint8Array, expectedModRevision?: number): Promise<KeyValue> {
    this.assertOpen();
    checkKey(key);
    const k = this.etcdKey(key);
    const v = Buffer.from(value);
    const res = await this.call(() =>
      this.client.kv.txn({
        compare: [this.guard(k, expectedModRevision)],
        success: [{ request_put: { key: k, value: v, prev_kv: true } }],
        failure: [{ request_range: { key: k } }],
      }),
    );
    if (!res.succeeded) throw this.refused(key, res, expectedModRevision);
    const prev = res.responses[0]?.response_put?.prev_kv;
    const rev = num(res.header.revision);
    return { key, value: v, createRevision: prev ? num(prev.create_revision) : rev, modRevision: rev };
  }

  async delete(key: string, expectedModRevision?: number): Promise<KeyValue> {
    this.assertOpen();
    checkKey(key);
    const k = this.etcdKey(key);
    const res = await this.call(() =>
      this.client.kv.txn({
        compare: [this.guard(k, expectedModRevision)],
        success: [{ request_delete_range: { key: k, prev_kv: true } }],
        failure: [{ request_range: { key: k } }],
      }),
    );
    if (!res.succeeded) throw this.refused(key, res, expectedModRevision);
    const prev = res.responses[0]?.response_delete_range?.prev_kvs?.[0];
    if (!prev) throw new StoreError('DKC_STORE_NOT_FOUND', `key ${key} not found`);
    return { key, value: prev.value, createRevision: num(prev.create_revision), modRevision: num(res.header.revision) };
  }

  async move(from: string, to: string, expectedModRevision?: number): Promise<KeyValue> {
    this.assertOpen();
    checkKey(from);
    checkMoveTarget(from, to);
    const f = this.etcdKey(from);
    const t = this.etcdKey(to);
    // The value must be the one the guard saw: read it at the same revision the guard pins, then move it in one
    // transaction that also requires the source unchanged since that read.
    for (;;) {
      const read = await this.call(() => this.client.kv.range({ key: f }));
      const cur = read.kvs[0];
      if (!cur) throw new StoreError('DKC_STORE_NOT_FOUND', `key ${from} not found`);
      const at = num(cur.mod_revision);
      if (expectedModRevision !== undefined && at !== expectedModRevision) {
        throw new StoreError('DKC_STORE_CONFLICT', `key ${from} is at revision ${at}, not ${expectedModRevision}`, at);
      }
      const res = await this.call(() =>
        this.client.kv.txn({
          compare: [
            { key: f, target: 'Mod', result: 'Equal', mod_revision: at },
            { key: t, target: 'Create', result: 'Equal', create_revision: 0 },
          ],
          success: [{ request_put: { key: t, value: cur.value } }, { request_delete_range: { key: f } }],
          failure: [{ request_range: { key: f } }, { request_range: { key: t } }],
        }),
      );
      if (res.succeeded) {
        const rev = num(res.header.revision);
        return { key: to, value: cur.value, createRevision: rev, modRevision: rev };
      }
      // The source gone since the read (another mover took it, or a delete) is not found, whatever the target holds
      // now: it was not there when this move was asked for with the source still present.
      if ((res.responses[0]?.response_range?.kvs ?? []).length === 0)
        throw new StoreError('DKC_STORE_NOT_FOUND', `key ${from} not found`);
      if ((res.responses[1]?.response_range?.kvs ?? []).length > 0)
        throw new StoreError('DKC_STORE_KEY_EXISTS', `key ${to} already exists`);
      // The source changed between the read and the transaction: read it again (the CAS, if any, decides then).
    }
  }

  watch(prefix: string, fromRevision: number, handlers: WatchHandlers): Watch {
    this.assertOpen();
    checkPrefix(prefix);
    checkRevision('fromRevision', fromRevision, this.knownCompacted);
    const w = new EtcdWatch(
      this,
      this.rangeStart(prefix),
      rangeEnd(this.etcdKey(prefix)),
      fromRevision,
      handlers,
      this.options.watchResumeTimeoutMs ?? DEFAULT_WATCH_RESUME_TIMEOUT_MS,
      this.options.clock ?? systemClock,
    );
    this.watches.add(w);
    w.open();
    return w;
  }

  async compact(revision: number): Promise<void> {
    this.assertOpen();
    if (!Number.isSafeInteger(revision) || revision < 0)
      throw new RangeError(`revision must be a non-negative integer, got ${revision}`);
    const marker = Buffer.from(COMPACT_REV_KEY);
    // Bounded: each round either wins the swap, finds a newer compaction, or lost to a concurrent replica.
    for (let round = 0; round < 10; round++) {
      const cur = await this.call(() => this.client.kv.range({ key: marker }));
      const current = num(cur.header.revision);
      if (revision > current)
        throw new RangeError(`cannot compact at ${revision}, newer than the current revision ${current}`);
      const kv = cur.kvs[0];
      const recorded = kv ? Number(kv.value.toString('utf8')) || 0 : 0;
      this.noteCompacted(recorded);
      if (revision <= recorded) return;
      const swapped = await this.call(() =>
        this.client.kv.txn({
          compare: [{ key: marker, target: 'Mod', result: 'Equal', mod_revision: kv ? kv.mod_revision : 0 }],
          success: [{ request_put: { key: marker, value: Buffer.from(String(revision)) } }],
        }),
      );
      if (!swapped.succeeded) continue;
      try {
        await this.call(() => this.client.kv.compact({ revision, physical: false }));
      } catch (err) {
        // Compacted further already (by an operator or etcd's own auto-compaction): the goal is met.
        if (!(err instanceof StoreError && err.code === 'DKC_STORE_COMPACTED')) throw err;
      }
      this.noteCompacted(revision);
      return;
    }
    throw new StoreError('DKC_STORE_UNAVAILABLE', 'compaction kept losing to concurrent compactions');
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.compactionTimer) clearInterval(this.compactionTimer);
    const err = new StoreError('DKC_STORE_UNAVAILABLE', 'the store was closed');
    for (const w of [...this.watches]) w.fail(err);
    this.client.close();
  }

  // ---- for EtcdWatch ----

  watchClient(): Etcd3Module.WatchClient {
    return this.client.watchClient;
  }

  forget(w: EtcdWatch): void {
    this.watches.delete(w);
  }

  isClosed(): boolean {
    return this.closed;
  }

  noteCompacted(revision: number): void {
    if (revision > this.knownCompacted) this.knownCompacted = revision;
  }

  callHandler(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      try {
        this.onHandlerError(err);
      } catch {
        // A failing reporter must not break the stream's event loop.
      }
    }
  }

  /** The Store key of an etcd key, or undefined for a key outside this store (the compaction marker). */
  storeKey(raw: Buffer): string | undefined {
    if (this.prefix.length === 0 && raw.toString('utf8') === COMPACT_REV_KEY) return undefined;
    return raw.subarray(this.prefix.length).toString('utf8');
  }

  toKeyValue(key: string, raw: RawKeyValue): KeyValue {
    return { key, value: raw.value, createRevision: num(raw.create_revision), modRevision: num(raw.mod_revision) };
  }

  // ---- helpers ----

  private etcdKey(key: string): Buffer {
    return Buffer.concat([this.prefix, Buffer.from(key, 'utf8')]);
  }

  /** The first key of a prefix range; etcd refuses an empty key, and "\0" is the smallest it accepts. */
  rangeStart(prefix: string): Buffer {
    const k = this.etcdKey(prefix);
    return k.length > 0 ? k : Buffer.from([0]);
  }

  /** The condition of an update or delete: the key exists, and with a CAS at exactly that revision. */
  private guard(k: Buffer, expected: number | undefined): Etcd3Module.ICompare {
    return expected === undefined
      ? { key: k, target: 'Create', result: 'Greater', create_revision: 0 }
      : { key: k, target: 'Mod', result: 'Equal', mod_revision: expected };
  }

  private refused(key: string, res: Etcd3Module.ITxnResponse, expected: number | undefined): StoreError {
    const cur = res.responses[0]?.response_range?.kvs?.[0];
    if (!cur) return new StoreError('DKC_STORE_NOT_FOUND', `key ${key} not found`);
    const rev = num(cur.mod_revision);
    return new StoreError('DKC_STORE_CONFLICT', `key ${key} is at revision ${rev}, not ${expected}`, rev);
  }

  private async compactionTick(): Promise<void> {
    if (this.closed) return;
    try {
      const target = this.lastTickRevision;
      this.lastTickRevision = await this.currentRevision();
      if (target > this.knownCompacted) await this.compact(target);
    } catch (err) {
      klog.error(`storage: periodic etcd compaction failed: ${errorMessage(err)}`);
    }
  }

  private assertOpen(): void {
    if (this.closed) throw new StoreError('DKC_STORE_UNAVAILABLE', 'the store is closed');
  }

  /** Runs one etcd request, turning the client's errors into StoreErrors. */
  private async call<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw this.storeErrorFrom(err);
    }
  }

  private storeErrorFrom(err: unknown): StoreError | RangeError {
    if (err instanceof StoreError) return err;
    const msg = errorMessage(err);
    if (/required revision has been compacted/.test(msg)) {
      return new StoreError(
        'DKC_STORE_COMPACTED',
        `the revision asked for has been compacted (oldest available ${this.knownCompacted})`,
        this.knownCompacted,
        {
          cause: err,
        },
      );
    }
    if (/required revision is a future revision/.test(msg))
      return new RangeError(`revision is newer than etcd's current revision: ${msg}`);
    if (this.closed) return new StoreError('DKC_STORE_UNAVAILABLE', 'the store is closed', undefined, { cause: err });
    const name = (err as { name?: string } | null)?.name ?? '';
    if (
      /Unavailable|DeadlineExceeded|Cancelled|ClientClosed|BrokenCircuit|Isolated/.test(name) ||
      /leader changed|no leader|timed out|too many requests|unavailable|connect|deadline|shutting down|not capable/i.test(
        msg,
      )
    ) {
      return new StoreError('DKC_STORE_UNAVAILABLE', `etcd is unavailable: ${msg}`, undefined, { cause: err });
    }
    return new StoreError('DKC_STORE_INTERNAL', `etcd error: ${msg}`, undefined, { cause: err });
  }
}

export async function openEtcdStore(options: EtcdStoreOptions): Promise<Store> {
  return EtcdStore.open(options);
}

/** etcd's range end for "every key starting with `start`": the prefix with its last byte below 0xff incremented. */
function rangeEnd(start: Buffer): Buffer {
  const end = Buffer.from(start);
  for (let i = end.length - 1; i >= 0; i--) {
    if (end[i]! < 0xff) {
      end[i]! += 1;
      return end.subarray(0, i + 1);
    }
  }
  // Every key: etcd reads "\0" as "no upper bound".
  return Buffer.from([0]);
}
