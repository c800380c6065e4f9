// The texts the dynamic config controller reports in Node.status.config.error, exactly as upstream's status
// package words them (operators and scripts compare them), plus dkc's own crash-loop text in the same style.

export const LoadError = 'failed to load config, see Kubelet log for details';
export const ValidateError = 'failed to validate config, see Kubelet log for details';
export const AllNilSubfieldsError = 'invalid NodeConfigSource, exactly one subfield must be non-nil, but all were nil';
export const DownloadError = 'failed to download config, see Kubelet log for details';
export const InternalError = 'internal failure, see Kubelet log for details';
/** dkc: the assigned config kept the agent from becoming healthy too many times in a row. */
export const CrashLoopError = 'failed to start with assigned config, see Kubelet log for details';

export function syncError(reason: string): string {
  return `failed to sync: ${reason}`;
}

/** dkc: the config is denied by the NodeConfigPolicies that govern the node (named), in upstream's style. */
export type PolicyError = `config denied by NodeConfigPolicy ${string}, see Kubelet log for details`;
export function policyError(policies: readonly string[]): PolicyError {
  return `config denied by NodeConfigPolicy ${policies.map((p) => JSON.stringify(p)).join(', ')}, see Kubelet log for details`;
}

export type BootErrorReason = typeof LoadError | typeof ValidateError | typeof InternalError | typeof CrashLoopError | PolicyError;

/** Bootstrap could not determine a valid configuration: the agent must exit (upstream's fatal path). */
export class BootstrapError extends Error {
  readonly code = 'bootstrap-failed';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'BootstrapError';
  }
}
