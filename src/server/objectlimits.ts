// What one stored object may weigh. etcd refuses a request over 1.5 MiB (its --max-request-bytes default) and
// kube-apiserver answers that with a 413; dkc's SQLite store refuses the same, so an object that fits one backend fits
// the other, and nothing every watcher and heartbeat carries grows without bound. kube-apiserver caps no number of
// managedFields entries (it folds Update managers beyond 10 into one); a request may bring at most 100 here, ten
// times what kubectl, server-side apply and controllers make of a busy object, so forged entries cannot fill it.

import { deepEqual } from '../api/equal.js';
import { errors, type StatusError } from '../api/errors.js';
import { field, type FieldError } from '../api/field.js';

export const MAX_STORED_OBJECT_BYTES = 1.5 * 1024 * 1024;
export const MAX_MANAGED_FIELDS_ENTRIES = 100;

/** The refusal of an encoded object over the limit, as kube-apiserver words etcd's (413), else undefined. */
export function storedSizeError(encoded: Uint8Array): StatusError | undefined {
  return encoded.byteLength > MAX_STORED_OBJECT_BYTES ? errors.storageRequestTooLarge() : undefined;
}

/**
 * A request's `metadata.managedFields` with more entries than allowed (a write-back of the stored list, unchanged,
 * is never refused: what is stored stays writable).
 */
export function managedFieldsTooMany(requested: unknown, stored: unknown): FieldError | undefined {
  if (!Array.isArray(requested) || requested.length <= MAX_MANAGED_FIELDS_ENTRIES) return undefined;
  if (stored !== undefined && deepEqual(requested, stored)) return undefined;
  return field.tooMany('metadata.managedFields', requested.length, MAX_MANAGED_FIELDS_ENTRIES);
}
