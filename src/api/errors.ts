// The API's error catalogue: every failure the server reports is a StatusError carrying a complete
// metav1.Status, worded as kube-apiserver words it (k8s.io/apimachinery/pkg/api/errors), because
// kubectl prints these messages verbatim and scripts match on them.

import { aggregate, type FieldError } from './field.js';
import { errorMessage } from '../util/errors.js';

export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: { resourceVersion?: string };
  status: 'Success' | 'Failure';
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code: number;
}

export type StatusReason =
  | 'BadRequest'
  | 'Unauthorized'
  | 'Forbidden'
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Gone'
  | 'Expired'
  | 'Invalid'
  | 'MethodNotAllowed'
  | 'NotAcceptable'
  | 'RequestEntityTooLarge'
  | 'UnsupportedMediaType'
  | 'TooManyRequests'
  | 'InternalError'
  | 'Timeout'
  | 'ServiceUnavailable';

/** A group-qualified resource or kind, rendered `plural` for the core group and `plural.group` otherwise. */
export interface GroupName {
  group: string;
  name: string;
}

export function qualified(g: GroupName): string {
  return g.group ? `${g.name}.${g.group}` : g.name;
}

export class StatusError extends Error {
  readonly status: Status;
  constructor(status: Omit<Status, 'kind' | 'apiVersion' | 'metadata' | 'status'>, options?: { cause?: unknown }) {
    super(status.message ?? status.reason ?? 'unknown error', options);
    this.name = 'StatusError';
    this.status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', ...status };
  }
  get code(): number {
    return this.status.code;
  }
  get reason(): string | undefined {
    return this.status.reason;
  }
}

function make(
  code: number,
  reason: StatusReason,
  message: string,
  details?: StatusDetails,
  cause?: unknown,
): StatusError {
  const s: Omit<Status, 'kind' | 'apiVersion' | 'metadata' | 'status'> = { message, reason, code };
  if (details) s.details = details;
  return new StatusError(s, cause === undefined ? undefined : { cause });
}

export const MAX_REQUEST_BODY_BYTES = 3 * 1024 * 1024;

export const errors = {
  notFound(resource: GroupName, name: string): StatusError {
    return make(404, 'NotFound', `${qualified(resource)} ${JSON.stringify(name)} not found`, {
      name,
      ...(resource.group ? { group: resource.group } : {}),
      kind: resource.name,
    });
  },
  /** A path the server does not serve at all. */
  notFoundPath(): StatusError {
    return make(404, 'NotFound', 'the server could not find the requested resource', {});
  },
  alreadyExists(resource: GroupName, name: string): StatusError {
    return make(409, 'AlreadyExists', `${qualified(resource)} ${JSON.stringify(name)} already exists`, {
      name,
      ...(resource.group ? { group: resource.group } : {}),
      kind: resource.name,
    });
  },
  conflict(resource: GroupName, name: string, why: string): StatusError {
    return make(
      409,
      'Conflict',
      `Operation cannot be fulfilled on ${qualified(resource)} ${JSON.stringify(name)}: ${why}`,
      {
        name,
        ...(resource.group ? { group: resource.group } : {}),
        kind: resource.name,
      },
    );
  },
  staleResourceVersion(resource: GroupName, name: string): StatusError {
    return errors.conflict(
      resource,
      name,
      'the object has been modified; please apply your changes to the latest version and try again',
    );
  },
  invalid(kind: GroupName, name: string, errs: FieldError[]): StatusError {
    const causes: StatusCause[] = errs.map((e) => ({ reason: e.type, message: e.body(), field: e.field }));
    const q = qualified(kind);
    const message = errs.length
      ? `${q} ${JSON.stringify(name)} is invalid: ${aggregate(errs.map((e) => e.toString()))}`
      : `${q} ${JSON.stringify(name)} is invalid`;
    return make(422, 'Invalid', message, {
      name,
      ...(kind.group ? { group: kind.group } : {}),
      kind: kind.name,
      causes,
    });
  },
  /** A server-side apply refused because other managers hold fields it would change; the causes name each one. */
  applyConflict(message: string, causes: StatusCause[]): StatusError {
    return make(409, 'Conflict', message, { causes });
  },
  /** A failure kube-apiserver reports as a bare error: 500 with no reason (kubectl prints "Error from server: …"). */
  unknown(message: string): StatusError {
    return new StatusError({ message, code: 500 });
  },
  /** 422 for a request that is well-formed but cannot be applied (e.g. a JSON patch whose test op fails). */
  invalidMessage(message: string): StatusError {
    return make(422, 'Invalid', message, { causes: [{ message }] });
  },
  badRequest(message: string): StatusError {
    return make(400, 'BadRequest', message);
  },
  unauthorized(message = 'Unauthorized'): StatusError {
    return make(401, 'Unauthorized', message);
  },
  forbidden(resource: GroupName, name: string, why: string): StatusError {
    const subject = name ? `${qualified(resource)} ${JSON.stringify(name)}` : qualified(resource);
    return make(403, 'Forbidden', `${subject} is forbidden: ${why}`, {
      ...(name ? { name } : {}),
      ...(resource.group ? { group: resource.group } : {}),
      kind: resource.name,
    });
  },
  /** A 403 whose whole message is given (non-resource paths, admission refusals). */
  forbiddenMessage(message: string, details?: StatusDetails): StatusError {
    return make(403, 'Forbidden', message, details);
  },
  methodNotAllowed(verb: string, kind: string): StatusError {
    return make(405, 'MethodNotAllowed', `${verb} is not supported on resources of kind ${JSON.stringify(kind)}`);
  },
  /** A method not served on a path that is served (GET of a namespace's /finalize). */
  methodNotAllowedOnPath(): StatusError {
    return make(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {});
  },
  notAcceptable(message: string): StatusError {
    return make(406, 'NotAcceptable', message);
  },
  gone(message: string): StatusError {
    return make(410, 'Gone', message);
  },
  /** A watch or list from a resourceVersion older than the retained history. */
  expired(message: string): StatusError {
    return make(410, 'Expired', message);
  },
  requestEntityTooLarge(limit = MAX_REQUEST_BODY_BYTES): StatusError {
    return make(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${limit}`);
  },
  /** What kube-apiserver answers when etcd refuses a write over its request limit. */
  storageRequestTooLarge(): StatusError {
    return make(413, 'RequestEntityTooLarge', 'Request entity too large: etcdserver: request is too large');
  },
  unsupportedMediaType(contentType: string): StatusError {
    return make(
      415,
      'UnsupportedMediaType',
      `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf (got ${JSON.stringify(contentType)})`,
    );
  },
  /** 415 naming the media types this endpoint accepts (the patch endpoints). */
  unsupportedMediaTypeFor(_contentType: string, accepted: string[]): StatusError {
    return make(
      415,
      'UnsupportedMediaType',
      `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
    );
  },
  tooManyRequests(message: string, retryAfterSeconds = 1): StatusError {
    return make(429, 'TooManyRequests', message, { retryAfterSeconds });
  },
  internal(err: unknown): StatusError {
    const msg = errorMessage(err);
    return make(500, 'InternalError', `Internal error occurred: ${msg}`, { causes: [{ message: msg }] }, err);
  },
  timeout(message: string): StatusError {
    return make(504, 'Timeout', message);
  },
  /** kube-apiserver's answer when a read asks for a resourceVersion the watch cache has not reached in 3 s. */
  tooLargeResourceVersion(asked: number, current: number): StatusError {
    return make(504, 'Timeout', `Timeout: Too large resource version: ${asked}, current: ${current}`, {
      causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
      retryAfterSeconds: 1,
    });
  },
  serviceUnavailable(message: string): StatusError {
    return make(503, 'ServiceUnavailable', message);
  },
};

/** Whatever was thrown, as a StatusError (unknown errors become 500 InternalError). */
export function toStatusError(err: unknown): StatusError {
  return err instanceof StatusError ? err : errors.internal(err);
}
