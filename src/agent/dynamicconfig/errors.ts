// Why bootstrap stops the agent: one of the status.config.error texts (src/api/configstatus.ts), and the error it
// exits with.

import type { CrashLoopError, InternalError, LoadError, PolicyError, ValidateError } from '../../api/configstatus.js';

export type BootErrorReason = typeof LoadError | typeof ValidateError | typeof InternalError | typeof CrashLoopError | PolicyError;

/** Bootstrap could not determine a valid configuration: the agent must exit (upstream's fatal path). */
export class BootstrapError extends Error {
  readonly code = 'bootstrap-failed';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'BootstrapError';
  }
}
