import { CodedError } from '../util/errors.js';
// Query parameters as kube-apiserver converts them into ListOptions, GetOptions and friends. One place, so that
// every handler reads `watch`, `allowWatchBookmarks` and the like the same way.

/**
 * A boolean query parameter as apimachinery's Convert_Slice_string_To_bool reads it: absent is false, `0` and
 * `false` (any case) are false, every other value (`true`, `True`, `1`, `t`, even the empty string) is true.
 * The official Python client sends `watch=True`.
 */
/** A query parameter's first value, undefined when absent. */
export function firstQuery(query: URLSearchParams, name: string): string | undefined {
  return query.get(name) ?? undefined;
}

export function boolParam(query: URLSearchParams, name: string): boolean {
  const v = query.get(name);
  if (v === null) return false;
  return !(v === '0' || v.toLowerCase() === 'false');
}

/** Thrown for a query parameter kube-apiserver would refuse; the HTTP layer answers 400 with this message. */
export class ParamError extends CodedError<'DKC_SERVER_INVALID_PARAM'> {
  constructor(message: string, options?: { cause?: unknown }) {
    super('DKC_SERVER_INVALID_PARAM', message, options);
  }
}

/** An int64 query parameter as Go's strconv.ParseInt reads it, with its error texts. */
export function int64Param(query: URLSearchParams, name: string): number | undefined {
  const v = query.get(name);
  if (v === null || v === '') return undefined;
  if (!/^[+-]?\d+$/.test(v))
    throw new ParamError(
      `${name}: Invalid value: ${JSON.stringify(v)}: strconv.ParseInt: parsing ${JSON.stringify(v)}: invalid syntax`,
    );
  const n = BigInt(v);
  if (n > 9223372036854775807n || n < -9223372036854775808n) {
    throw new ParamError(
      `${name}: Invalid value: ${JSON.stringify(v)}: strconv.ParseInt: parsing ${JSON.stringify(v)}: value out of range`,
    );
  }
  if (n > BigInt(Number.MAX_SAFE_INTEGER) || n < BigInt(Number.MIN_SAFE_INTEGER))
    return n > 0n ? Number.MAX_SAFE_INTEGER : Number.MIN_SAFE_INTEGER;
  return Number(n);
}

export interface ListResourceVersion {
  /** Absent or "0": any recent state (the watch cache) will do. */
  revision?: number;
  /** Exact: the list at exactly that revision; NotOlderThan (the default): at least that fresh. */
  match: 'Exact' | 'NotOlderThan';
}

/** `resourceVersion` and `resourceVersionMatch` of a list, refused as kube-apiserver refuses them. */
export function listResourceVersion(query: URLSearchParams): ListResourceVersion {
  const rv = query.get('resourceVersion') ?? '';
  const matchParam = query.get('resourceVersionMatch') ?? '';
  if (matchParam !== '' && matchParam !== 'Exact' && matchParam !== 'NotOlderThan') {
    throw new ParamError(
      `resourceVersionMatch: Unsupported value: ${JSON.stringify(matchParam)}: supported values: "Exact", "NotOlderThan"`,
    );
  }
  if (matchParam !== '' && rv === '')
    throw new ParamError(
      'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided',
    );
  const match = matchParam === 'Exact' ? 'Exact' : 'NotOlderThan';
  if (rv === '' || rv === '0') {
    if (match === 'Exact' && rv === '0')
      throw new ParamError(
        'resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
      );
    return { match };
  }
  if (!/^\d+$/.test(rv))
    throw new ParamError(
      `resourceVersion: Invalid value: ${JSON.stringify(rv)}: strconv.ParseUint: parsing ${JSON.stringify(rv)}: invalid syntax`,
    );
  const n = Number(rv);
  if (!Number.isSafeInteger(n))
    throw new ParamError(
      `resourceVersion: Invalid value: ${JSON.stringify(rv)}: strconv.ParseUint: parsing ${JSON.stringify(rv)}: value out of range`,
    );
  return { revision: n, match };
}
