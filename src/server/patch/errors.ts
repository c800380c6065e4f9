// The single error type every patch engine throws. The HTTP layer turns it into a metav1.Status, so
// the code is the stable contract and the message is human text in the spirit of kube-apiserver's.
// Nothing else ever escapes an engine: a request body can be anything, and the server must answer
// with a Status rather than fall over.

/**
 * Stable failure categories, and the HTTP status the API server answers with:
 *
 * | code             | HTTP | reason     | meaning                                                          |
 * |------------------|------|------------|------------------------------------------------------------------|
 * | `invalid-patch`  | 400  | BadRequest | the patch body is malformed for its content type (wrong shape,   |
 * |                  |      |            | unknown op or directive, bad pointer, missing merge key, limits) |
 * | `patch-conflict` | 422  | Invalid    | a well-formed patch does not fit the object it is applied to     |
 * | `test-failed`    | 422  | Invalid    | a JSON-patch `test` operation did not hold                       |
 * | `missing-path`   | 422  | Invalid    | a JSON-patch operation refers to a location that does not exist  |
 */
export type PatchErrorCode = 'invalid-patch' | 'patch-conflict' | 'test-failed' | 'missing-path';

export const patchErrorHttpStatus: Readonly<Record<PatchErrorCode, 400 | 422>> = {
  'invalid-patch': 400,
  'patch-conflict': 422,
  'test-failed': 422,
  'missing-path': 422,
};

export class PatchError extends Error {
  override readonly name = 'PatchError';
  readonly code: PatchErrorCode;

  constructor(code: PatchErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }

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
 * applying a patch becomes an 'invalid-patch' error that keeps the original as its cause.
 */
export function toPatchError(err: unknown): PatchError {
  if (err instanceof PatchError) return err;
  const detail = err instanceof Error ? err.message : String(err);
  return new PatchError('invalid-patch', `the patch could not be applied: ${detail}`, { cause: err });
}
