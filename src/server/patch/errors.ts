// The single error type every patch engine throws. The HTTP layer turns it into a metav1.Status, so
// the code is the stable contract and the message is human text in the spirit of kube-apiserver's.
// Nothing else ever escapes an engine: a request body can be anything, and the server must answer
// with a Status rather than fall over.

import { CodedError, errorMessage } from '../../util/errors.js';

/** Stable failure categories; patchErrorHttpStatus is the HTTP status the API server answers each with. */
export type PatchErrorCode =
  /** The patch body is malformed for its content type (400 BadRequest). */
  | 'DKC_PATCH_INVALID'
  /** A well-formed patch does not fit the object it is applied to (422 Invalid). */
  | 'DKC_PATCH_CONFLICT'
  /** A JSON-patch `test` operation did not hold (422 Invalid). */
  | 'DKC_PATCH_TEST_FAILED'
  /** A JSON-patch operation refers to a location that does not exist (422 Invalid). */
  | 'DKC_PATCH_MISSING_PATH';

export const patchErrorHttpStatus: Readonly<Record<PatchErrorCode, 400 | 422>> = {
  DKC_PATCH_INVALID: 400,
  DKC_PATCH_CONFLICT: 422,
  DKC_PATCH_TEST_FAILED: 422,
  DKC_PATCH_MISSING_PATH: 422,
};

export class PatchError extends CodedError<PatchErrorCode> {
  override readonly name = 'PatchError';

  /** 400 for malformed patches, 422 for patches that cannot be applied to this object. */
  get httpStatus(): 400 | 422 {
    return patchErrorHttpStatus[this.code];
  }
}

export function isPatchError(err: unknown): err is PatchError {
  return err instanceof PatchError;
}

/**
 * Last line of defence for the "only PatchError escapes" contract: anything else thrown while
 * applying a patch becomes an 'DKC_PATCH_INVALID' error that keeps the original as its cause.
 */
export function toPatchError(err: unknown): PatchError {
  if (err instanceof PatchError) return err;
  const detail = errorMessage(err);
  return new PatchError('DKC_PATCH_INVALID', `the patch could not be applied: ${detail}`, { cause: err });
}
