// DeleteOptions as kube-apiserver reads and applies them: from the request body, or from the query when the body is
// empty (never both); validated with apimachinery's rules and wording; then turned, together with the object's
// finalizers, into the finalizers a delete leaves on the object for the garbage collector — `orphan` for
// propagationPolicy Orphan (or the legacy orphanDependents=true), `foregroundDeletion` for Foreground, neither for
// Background. Every kind dkc serves defaults to Background, as every kind kube-apiserver serves does outside the
// legacy extensions/v1beta1 and apps/v1beta1|2 groups. Pure.

import { errors, type StatusError } from '../api/errors.js';
import { field, type FieldError } from '../api/field.js';

export const FINALIZER_ORPHAN = 'orphan';
export const FINALIZER_FOREGROUND = 'foregroundDeletion';

export type PropagationPolicy = 'Foreground' | 'Background' | 'Orphan';
const POLICIES: readonly string[] = ['Foreground', 'Background', 'Orphan'];

export interface DeleteOptions {
  preconditions?: { uid?: string; resourceVersion?: string };
  propagationPolicy?: PropagationPolicy;
  /** The legacy switch: true is Orphan, false is Background. */
  orphanDependents?: boolean;
  /** A Pod's grace period (src/server/pods/deletion.ts); other kinds delete at once. */
  gracePeriodSeconds?: number;
  dryRun?: boolean;
}

const DELETE_OPTIONS_KIND = { group: 'meta.k8s.io', name: 'DeleteOptions' };

function badBody(what: string): StatusError {
  return errors.badRequest(`DeleteOptions: ${what}`);
}

function optionalString(v: unknown, name: string): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw badBody(`${name} must be a string`);
  return v;
}

function fromBody(body: Record<string, unknown>): { options: DeleteOptions; dryRun: string[] } {
  const options: DeleteOptions = {};
  const pre = body['preconditions'];
  if (pre !== undefined && pre !== null) {
    if (typeof pre !== 'object' || Array.isArray(pre)) throw badBody('preconditions must be an object');
    const p = pre as Record<string, unknown>;
    const uid = optionalString(p['uid'], 'preconditions.uid');
    const rv = optionalString(p['resourceVersion'], 'preconditions.resourceVersion');
    options.preconditions = {
      ...(uid !== undefined ? { uid } : {}),
      ...(rv !== undefined ? { resourceVersion: rv } : {}),
    };
  }
  const policy = optionalString(body['propagationPolicy'], 'propagationPolicy');
  if (policy !== undefined) options.propagationPolicy = policy as PropagationPolicy;
  const orphan = body['orphanDependents'];
  if (orphan !== undefined && orphan !== null) {
    if (typeof orphan !== 'boolean') throw badBody('orphanDependents must be a boolean');
    options.orphanDependents = orphan;
  }
  const grace = body['gracePeriodSeconds'];
  if (grace !== undefined && grace !== null) {
    if (typeof grace !== 'number' || !Number.isInteger(grace)) throw badBody('gracePeriodSeconds must be an integer');
    options.gracePeriodSeconds = grace;
  }
  const dryRun = body['dryRun'];
  if (dryRun !== undefined && dryRun !== null && (!Array.isArray(dryRun) || dryRun.some((d) => typeof d !== 'string')))
    throw badBody('dryRun must be a list of strings');
  return { options, dryRun: (dryRun as string[] | undefined) ?? [] };
}

function fromQuery(q: URLSearchParams): { options: DeleteOptions; dryRun: string[] } {
  const options: DeleteOptions = {};
  const policy = q.get('propagationPolicy');
  if (policy !== null) options.propagationPolicy = policy as PropagationPolicy;
  const orphan = q.get('orphanDependents');
  if (orphan !== null) {
    if (orphan !== 'true' && orphan !== 'false')
      throw errors.badRequest(`strconv.ParseBool: parsing ${JSON.stringify(orphan)}: invalid syntax`);
    options.orphanDependents = orphan === 'true';
  }
  const grace = q.get('gracePeriodSeconds');
  if (grace !== null) {
    if (!/^-?\d+$/.test(grace))
      throw errors.badRequest(`strconv.ParseInt: parsing ${JSON.stringify(grace)}: invalid syntax`);
    options.gracePeriodSeconds = Number(grace);
  }
  return { options, dryRun: q.getAll('dryRun') };
}

/** apimachinery's ValidateDeleteOptions. */
export function validateDeleteOptions(o: DeleteOptions, dryRun: readonly string[]): FieldError[] {
  const errs: FieldError[] = [];
  if (o.orphanDependents !== undefined && o.propagationPolicy !== undefined) {
    errs.push(
      field.invalid(
        'propagationPolicy',
        o.propagationPolicy,
        'orphanDependents and deletionPropagation cannot be both set',
      ),
    );
  }
  if (o.propagationPolicy !== undefined && !POLICIES.includes(o.propagationPolicy)) {
    errs.push(field.notSupported('propagationPolicy', o.propagationPolicy, [...POLICIES, 'nil']));
  }
  if (dryRun.some((d) => d !== 'All')) errs.push(field.notSupported('dryRun', dryRun, ['All']));
  return errs;
}

/**
 * The DeleteOptions of a DELETE: its body's when it has one (decoded by the caller), else its query's. A negative
 * gracePeriodSeconds counts as 1, as kube-apiserver's BeforeDelete has it.
 */
export function deleteOptionsOf(body: Record<string, unknown> | undefined, q: URLSearchParams): DeleteOptions {
  const { options, dryRun } = body !== undefined ? fromBody(body) : fromQuery(q);
  const errs = validateDeleteOptions(options, dryRun);
  if (errs.length) throw errors.invalid(DELETE_OPTIONS_KIND, '', errs);
  if (options.gracePeriodSeconds !== undefined && options.gracePeriodSeconds < 0) options.gracePeriodSeconds = 1;
  if (dryRun.length > 0) options.dryRun = true;
  return options;
}

/** kube-apiserver's shouldOrphanDependents: options first, then the finalizers already set, then the default. */
function shouldOrphan(finalizers: readonly string[], o: DeleteOptions): boolean {
  if (o.orphanDependents !== undefined) return o.orphanDependents;
  if (o.propagationPolicy !== undefined) return o.propagationPolicy === 'Orphan';
  for (const f of finalizers) {
    if (f === FINALIZER_ORPHAN) return true;
    if (f === FINALIZER_FOREGROUND) return false;
  }
  return false;
}

/** kube-apiserver's shouldDeleteDependents (foreground). */
function shouldForeground(finalizers: readonly string[], o: DeleteOptions): boolean {
  if (o.orphanDependents !== undefined) return false;
  if (o.propagationPolicy !== undefined) return o.propagationPolicy === 'Foreground';
  for (const f of finalizers) {
    if (f === FINALIZER_FOREGROUND) return true;
    if (f === FINALIZER_ORPHAN) return false;
  }
  return false;
}

/**
 * The finalizers a delete with `o` leaves on an object that has `finalizers` (kube-apiserver's
 * deletionFinalizersForGarbageCollection), or undefined when they stay as they are. This applies to an object
 * already being deleted too: a second delete with another policy swaps `orphan` and `foregroundDeletion`, and a
 * Background delete of an object held only by one of them removes it, which deletes the object.
 */
export function finalizersForDelete(finalizers: readonly string[], o: DeleteOptions): string[] | undefined {
  const next = finalizers.filter((f) => f !== FINALIZER_ORPHAN && f !== FINALIZER_FOREGROUND);
  if (shouldOrphan(finalizers, o)) next.push(FINALIZER_ORPHAN);
  if (shouldForeground(finalizers, o)) next.push(FINALIZER_FOREGROUND);
  const before = new Set(finalizers);
  const after = new Set(next);
  if (before.size === after.size && [...after].every((f) => before.has(f))) return undefined;
  return next;
}

/** kube-apiserver's BeforeDelete preconditions, with its 409 wording (the resource named by its kind). */
export function preconditionFailure(
  o: DeleteOptions,
  meta: { uid?: string | undefined; resourceVersion?: string | undefined },
): string | undefined {
  const p = o.preconditions;
  if (p?.uid !== undefined && p.uid !== (meta.uid ?? '')) {
    return `the UID in the precondition (${p.uid}) does not match the UID in record (${meta.uid ?? ''}). The object might have been deleted and then recreated`;
  }
  if (p?.resourceVersion !== undefined && p.resourceVersion !== (meta.resourceVersion ?? '')) {
    return `the ResourceVersion in the precondition (${p.resourceVersion}) does not match the ResourceVersion in record (${meta.resourceVersion ?? ''}). The object might have been modified`;
  }
  return undefined;
}
