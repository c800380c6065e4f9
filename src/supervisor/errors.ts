// The supervisor's error catalogue. Misuse is reported with a stable code so that `dkc up` can print one
// line for a bad flag value without matching on messages; a child that fails to run is never an error
// here — it is an exit, paced by the backoff like any crash.

import { CodedError } from '../util/errors.js';

export type SupervisorErrorCode =
  /** An option or child spec holds a value the supervisor cannot use (negative delay, empty name, ...). */
  | 'DKC_SUPERVISOR_INVALID_ARGUMENT'
  /** A child with this name is already supervised. */
  | 'DKC_SUPERVISOR_DUPLICATE_CHILD'
  /** No child with this name is supervised. */
  | 'DKC_SUPERVISOR_UNKNOWN_CHILD'
  /** The supervisor was stopped; it does not start or accept children again. */
  | 'DKC_SUPERVISOR_STOPPED';

export class SupervisorError extends CodedError<SupervisorErrorCode> {
  override name = 'SupervisorError';
}
