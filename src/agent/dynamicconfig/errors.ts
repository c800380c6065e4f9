// Why bootstrap stops the agent: one of the status.config.error texts (src/api/configstatus.ts), and the error it
// exits with.

import type { CrashLoopError, InternalError, LoadError, PolicyError, ValidateError } from '../../api/configstatus.js';
import { CodedError } from '../../util/errors.js';

export type BootErrorReason =
  typeof LoadError | typeof ValidateError | typeof InternalError | typeof CrashLoopError | PolicyError;

/** Bootstrap could not determine a valid configuration: the agent must exit (upstream's fatal path). */
export class BootstrapError extends CodedError<'DKC_AGENT_BOOTSTRAP_FAILED'> {
  override name = 'BootstrapError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('DKC_AGENT_BOOTSTRAP_FAILED', message, options);
  }
}
