// The error catalogue of the KubeletConfiguration library. Every failure carries a stable `code` (for
// programs) and the kubelet's own wording as `message` (for operators, who grep logs for the same phrases
// a 1.22 kubelet prints). Validation never throws: it returns messages, aggregated the way apimachinery's
// utilerrors.NewAggregate renders them.

import { CodedError } from '../util/errors.js';

export const ErrorCodes = {
  /** The data was zero bytes long. */
  EmptyData: 'DKC_KUBELETCONFIG_EMPTY_DATA',
  /** JSON or YAML syntax error, or a top level that is not an object. */
  Syntax: 'DKC_KUBELETCONFIG_SYNTAX',
  /** `kind` is absent or empty. */
  MissingKind: 'DKC_KUBELETCONFIG_MISSING_KIND',
  /** `apiVersion` is absent, empty, or has no version part. */
  MissingVersion: 'DKC_KUBELETCONFIG_MISSING_VERSION',
  /** `apiVersion` has more than one `/`. */
  BadGroupVersion: 'DKC_KUBELETCONFIG_BAD_GROUP_VERSION',
  /** group/version/kind not known to the kubelet config scheme. */
  NotRegistered: 'DKC_KUBELETCONFIG_NOT_REGISTERED',
  /** A registered kind other than KubeletConfiguration. */
  WrongKind: 'DKC_KUBELETCONFIG_WRONG_KIND',
  /** A field holds a value of the wrong type or an unparsable Duration/Quantity. */
  FieldType: 'DKC_KUBELETCONFIG_FIELD_TYPE',
  /** A Duration string rejected by Go's time.ParseDuration rules. */
  InvalidDuration: 'DKC_KUBELETCONFIG_INVALID_DURATION',
  /** A Quantity string rejected by resource.ParseQuantity rules. */
  InvalidQuantity: 'DKC_KUBELETCONFIG_INVALID_QUANTITY',
  /** A command-line flag could not be parsed. */
  InvalidFlag: 'DKC_KUBELETCONFIG_INVALID_FLAG',
  /** A feature gate map could not be applied (unknown or locked gate). */
  FeatureGate: 'DKC_KUBELETCONFIG_FEATURE_GATE',
  /** A value cannot be encoded (e.g. a non-finite float). */
  Encode: 'DKC_KUBELETCONFIG_ENCODE',
  /** A kubelet version the library has no table for, or text that is not a version. */
  UnknownVersion: 'DKC_KUBELETCONFIG_UNKNOWN_VERSION',
} as const;

export type ErrorCode = (typeof ErrorCodes)[keyof typeof ErrorCodes];

export class KubeletConfigError extends CodedError<ErrorCode> {
  override name = 'KubeletConfigError';
}

/**
 * A payload that cannot become a KubeletConfiguration. `message` is what the kubelet's
 * DecodeKubeletConfiguration returns (`failed to decode: …`), `detail` the inner text without that prefix.
 */
export class DecodeError extends KubeletConfigError {
  readonly detail: string;
  constructor(code: ErrorCode, detail: string, options?: { cause?: unknown; prefix?: boolean }) {
    super(code, options?.prefix === false ? detail : `failed to decode: ${detail}`, options);
    this.name = 'DecodeError';
    this.detail = detail;
  }
}

export class DurationError extends KubeletConfigError {
  /** The same failure without the text that was parsed, for messages about data that must not be quoted. */
  readonly unquoted: string;
  constructor(message: string, unquoted = message) {
    super(ErrorCodes.InvalidDuration, message);
    this.name = 'DurationError';
    this.unquoted = unquoted;
  }
}

export class QuantityError extends KubeletConfigError {
  constructor(message: string) {
    super(ErrorCodes.InvalidQuantity, message);
    this.name = 'QuantityError';
  }
}

/** A kubelet flag whose value pflag would reject; `message` matches pflag's `invalid argument …` text. */
export class FlagError extends KubeletConfigError {
  readonly flag: string;
  constructor(flag: string, message: string, options?: { cause?: unknown }) {
    super(ErrorCodes.InvalidFlag, message, options);
    this.name = 'FlagError';
    this.flag = flag;
  }
}

export class FeatureGateError extends KubeletConfigError {
  constructor(message: string) {
    super(ErrorCodes.FeatureGate, message);
    this.name = 'FeatureGateError';
  }
}

export class EncodeError extends KubeletConfigError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(ErrorCodes.Encode, message, options);
    this.name = 'EncodeError';
  }
}

/** A layer of a rendered config (the base or a drop-in) that does not decode; `source` names the layer. */
export class LayerError extends KubeletConfigError {
  readonly source: string;
  constructor(source: string, cause: KubeletConfigError) {
    super(cause.code, cause.message, { cause });
    this.name = 'LayerError';
    this.source = source;
  }
}

/** Distinct messages in first-seen order (what an aggregate holds once rendered). */
export function distinct(messages: readonly string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const m of messages) {
    if (!seen.has(m)) {
      seen.add(m);
      out.push(m);
    }
  }
  return out;
}

/**
 * apimachinery's aggregate rendering: nothing for none, the message alone for one distinct message,
 * otherwise `[a, b, …]` with duplicates dropped.
 */
export function aggregate(messages: readonly string[]): string {
  const d = distinct(messages);
  if (d.length === 0) return '';
  if (d.length === 1) return d[0]!;
  return `[${d.join(', ')}]`;
}
