// The client's error catalogue. Two kinds of failure reach callers: the API server said no (ApiError,
// carrying the server's metav1.Status so callers branch on HTTP code and reason exactly as client-go
// users do), or the request never produced an answer (ClientError, with a stable string code).

import type { Status } from '../api/errors.js';
import { CodedError } from '../util/errors.js';

export type ClientErrorCode =
  /** The kubeconfig file could not be read (missing, unreadable, or a file it references is). */
  | 'DKC_CLIENT_KUBECONFIG_READ'
  /** The kubeconfig does not parse or lacks what is needed to reach a server. */
  | 'DKC_CLIENT_KUBECONFIG_INVALID'
  /** The kubeconfig asks for an authentication method dkc does not implement (exec, auth-provider, basic). */
  | 'DKC_CLIENT_KUBECONFIG_UNSUPPORTED'
  /** A caller passed a value the client cannot use. */
  | 'DKC_CLIENT_INVALID_ARGUMENT'
  /** The caller's AbortSignal fired. */
  | 'DKC_CLIENT_ABORTED'
  /** The request took longer than the client's timeout. */
  | 'DKC_CLIENT_TIMEOUT'
  /** No response: connection refused or reset, TLS failure, DNS failure. */
  | 'DKC_CLIENT_CONNECTION'
  /** A 2xx response whose body is not the JSON it claims to be. */
  | 'DKC_CLIENT_RESPONSE_DECODE'
  /** A watch stream broke off mid-way (as opposed to the server ending it cleanly). */
  | 'DKC_CLIENT_WATCH_STREAM'
  /** A watch stream carried a line that is not a watch event. */
  | 'DKC_CLIENT_WATCH_DECODE';

export class ClientError extends CodedError<ClientErrorCode> {
  override name = 'ClientError';
}

/** A non-2xx answer from the API server. `message` is the server's Status message, verbatim. */
export class ApiError extends Error {
  /** The HTTP status code (also `status.code`). */
  readonly code: number;
  /** The Status reason (NotFound, Conflict, Expired, ...), derived from the code when the server gave none. */
  readonly reason: string;
  readonly status: Status;
  constructor(status: Status, options?: { cause?: unknown }) {
    super(status.message ?? status.reason ?? `the server responded with status ${status.code}`, options);
    this.name = 'ApiError';
    this.code = status.code;
    this.reason = status.reason ?? reasonForCode(status.code);
    this.status = status;
  }
}

/** The request got no answer from the API server (refused, reset, timed out), as opposed to one it refused. */
export function isUnanswered(err: unknown): boolean {
  return err instanceof ClientError && (err.code === 'DKC_CLIENT_CONNECTION' || err.code === 'DKC_CLIENT_TIMEOUT');
}

/** True when `err` is an ApiError, and has HTTP code `code` when one is given. */
export function isApiError(err: unknown, code?: number): err is ApiError {
  return err instanceof ApiError && (code === undefined || err.code === code);
}

/** True for the answers that mean "your resourceVersion is too old, list again" (410 Gone / Expired). */
export function isResourceExpired(status: Pick<Status, 'code' | 'reason'>): boolean {
  return status.code === 410 || status.reason === 'Expired' || status.reason === 'Gone';
}

// The reasons and messages client-go gives a response that carries no Status of its own
// (k8s.io/apimachinery/pkg/api/errors.NewGenericServerResponse), so errors read the same in both clients.
const GENERIC: Record<number, [reason: string, message: string]> = {
  400: ['BadRequest', 'the server rejected our request for an unknown reason'],
  401: ['Unauthorized', 'the server has asked for the client to provide credentials'],
  403: ['Forbidden', 'the server does not allow access to the requested resource'],
  404: ['NotFound', 'the server could not find the requested resource'],
  405: ['MethodNotAllowed', 'the server does not allow this method on the requested resource'],
  406: ['NotAcceptable', 'the server was unable to respond with a content type that the client supports'],
  409: ['Conflict', 'the server reported a conflict'],
  410: ['Gone', 'the server has removed the requested resource'],
  413: ['RequestEntityTooLarge', 'the server has rejected the request because it is too large'],
  415: ['UnsupportedMediaType', 'the server does not support the media type of the request'],
  422: ['Invalid', 'the server rejected our request due to an error in our request'],
  429: ['TooManyRequests', 'the server has received too many requests and has asked us to try again later'],
  500: ['InternalError', 'an error on the server has prevented the request from succeeding'],
  503: ['ServiceUnavailable', 'the server is currently unable to handle the request'],
  504: [
    'Timeout',
    'the server was unable to return a response in the time allotted, but may still be processing the request',
  ],
};

export function reasonForCode(code: number): string {
  return GENERIC[code]?.[0] ?? 'Unknown';
}

function isStatus(v: unknown): v is Partial<Status> & { kind: 'Status' } {
  return typeof v === 'object' && v !== null && (v as { kind?: unknown }).kind === 'Status';
}

/**
 * The Status for a failed response: the server's own when the body is one, otherwise a generic one in
 * client-go's words (with the body as the message when it has something to say).
 */
export function statusFromResponse(code: number, body: unknown, retryAfter?: string): Status {
  if (isStatus(body)) {
    const s: Status = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: body.metadata ?? {},
      status: 'Failure',
      code: typeof body.code === 'number' && body.code !== 0 ? body.code : code,
    };
    if (body.message !== undefined) s.message = body.message;
    if (body.reason !== undefined && body.reason !== '') s.reason = body.reason;
    else s.reason = reasonForCode(code);
    if (body.details !== undefined) s.details = body.details;
    return s;
  }
  const generic = GENERIC[code];
  const text = typeof body === 'string' ? body.trim().slice(0, 1024) : '';
  let message = generic?.[1] ?? `the server responded with status ${code}`;
  if (code === 500 && text)
    message = `an error on the server (${JSON.stringify(text)}) has prevented the request from succeeding`;
  else if (!generic && text) message = text;
  const s: Status = {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    code,
    reason: reasonForCode(code),
    message,
  };
  const seconds = retryAfter === undefined ? NaN : Number.parseInt(retryAfter, 10);
  if (Number.isInteger(seconds) && seconds > 0) s.details = { retryAfterSeconds: seconds };
  return s;
}
