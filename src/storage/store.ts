// The storage contract the API server is written against: a revisioned key-value store with watch,
// shaped after etcd v3 so that the embedded SQLite backend and the etcd backend are interchangeable.
// Values are opaque bytes to the store (the server stores JSON). Revisions are a single, global,
// strictly increasing counter; every successful write gets a new one.

import { CodedError } from '../util/errors.js';

export interface KeyValue {
  key: string;
  value: Uint8Array;
  /** Revision of the write that created this key (since its last deletion). */
  createRevision: number;
  /** Revision of the last write to this key; the object's resourceVersion. */
  modRevision: number;
}

export type WatchEvent =
  { type: 'put'; kv: KeyValue; prevKv?: KeyValue } | { type: 'delete'; kv: KeyValue; prevKv?: KeyValue }; // kv.modRevision is the delete's revision; kv.value the deleted value

export interface ListOptions {
  /** Return at most this many items (0 or undefined = all). */
  limit?: number;
  /** Return only keys strictly greater than this one (pagination). */
  startAfter?: string;
  /** Read at this revision (0/undefined = current). Older than the compacted revision → StoreError 'DKC_STORE_COMPACTED'. */
  revision?: number;
}

export interface ListResult {
  items: KeyValue[];
  /** The revision the list was read at. */
  revision: number;
  /** True when items were cut off by `limit`. */
  more: boolean;
}

export interface Watch {
  /** Stop delivering events; idempotent. */
  cancel(): void;
}

export interface WatchHandlers {
  /** Events with modRevision > fromRevision, in revision order, without gaps. */
  onEvents(events: WatchEvent[]): void;
  /** The watch ended and will deliver nothing more (compaction overtook it, backend closed, connection lost). */
  onError(err: StoreError): void;
}

export type StoreErrorCode =
  /** A create of a key that exists. */
  | 'DKC_STORE_KEY_EXISTS'
  /** An update, delete or get of a missing key where one is required. */
  | 'DKC_STORE_NOT_FOUND'
  /** A compare-and-swap on modRevision failed. */
  | 'DKC_STORE_CONFLICT'
  /** A revision older than the compacted one was asked for. */
  | 'DKC_STORE_COMPACTED'
  /** The backend is unreachable or closed. */
  | 'DKC_STORE_UNAVAILABLE'
  /** The backend failed in a way none of the above describes. */
  | 'DKC_STORE_INTERNAL';

export class StoreError extends CodedError<StoreErrorCode> {
  override name = 'StoreError';
  constructor(
    code: StoreErrorCode,
    message: string,
    /** For 'DKC_STORE_COMPACTED': the oldest revision still available. For 'DKC_STORE_CONFLICT': the key's current modRevision. */
    readonly revision?: number,
    options?: { cause?: unknown },
  ) {
    super(code, message, options);
  }
}

export interface Store {
  /** The current (newest) revision. */
  currentRevision(): Promise<number>;
  /** The oldest revision still readable/watchable (everything before was compacted). */
  compactedRevision(): Promise<number>;
  get(key: string): Promise<KeyValue | undefined>;
  /** Keys starting with `prefix`, in key order. */
  list(prefix: string, options?: ListOptions): Promise<ListResult>;
  /** Fails with 'DKC_STORE_KEY_EXISTS' if the key exists. */
  create(key: string, value: Uint8Array): Promise<KeyValue>;
  /**
   * Replace the value. With `expectedModRevision`, fails with 'DKC_STORE_CONFLICT' unless the key's modRevision equals it.
   * Fails with 'DKC_STORE_NOT_FOUND' if the key does not exist.
   */
  update(key: string, value: Uint8Array, expectedModRevision?: number): Promise<KeyValue>;
  /** Delete and return the deleted pair (its modRevision is the revision of the delete). Same CAS rule as update. */
  delete(key: string, expectedModRevision?: number): Promise<KeyValue>;
  /**
   * Move a value to a key that does not exist yet, in one atomic step: afterwards `to` holds `from`'s value and `from`
   * is gone, or nothing changed. Fails with 'DKC_STORE_KEY_EXISTS' if `to` exists, and like delete on `from` ('DKC_STORE_NOT_FOUND', or
   * 'DKC_STORE_CONFLICT' under the same CAS rule). Returns the new pair; watchers see the put of `to`, then the delete of `from`.
   */
  move(from: string, to: string, expectedModRevision?: number): Promise<KeyValue>;
  /**
   * Deliver every change under `prefix` with revision > `fromRevision`. Fails synchronously (throws StoreError
   * 'DKC_STORE_COMPACTED') when fromRevision is older than the compacted revision.
   */
  watch(prefix: string, fromRevision: number, handlers: WatchHandlers): Watch;
  /** Forget history at and before `revision` (the latest value of every live key is always kept). */
  compact(revision: number): Promise<void>;
  close(): Promise<void>;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Argument checks every backend applies: keys are non-empty, well-formed Unicode (they are compared as UTF-8). */
export function checkKey(key: string): void {
  if (typeof key !== 'string' || key.length === 0) throw new RangeError('a key must be a non-empty string');
  if (LONE_SURROGATE.test(key)) throw new RangeError('a key must be well-formed Unicode');
}

/** A move's target: a valid key other than its source. */
export function checkMoveTarget(from: string, to: string): void {
  checkKey(to);
  if (to === from) throw new RangeError('a key cannot be moved onto itself');
}

export function checkPrefix(prefix: string): void {
  if (typeof prefix !== 'string') throw new RangeError('a prefix must be a string');
  if (LONE_SURROGATE.test(prefix)) throw new RangeError('a prefix must be well-formed Unicode');
}

/** A revision to read or watch from (`name` is the argument's name): a non-negative integer, not older than `compacted`. */
export function checkRevision(name: string, revision: number, compacted: number): void {
  if (!Number.isSafeInteger(revision) || revision < 0)
    throw new RangeError(`${name} must be a non-negative integer, got ${revision}`);
  if (revision < compacted)
    throw new StoreError(
      'DKC_STORE_COMPACTED',
      `revision ${revision} has been compacted (oldest available ${compacted})`,
      compacted,
    );
}
