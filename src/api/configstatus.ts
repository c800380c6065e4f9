// The texts a node's dynamic config controller reports in status.config.error (of a Node, or of its NodeConfig),
// exactly as upstream's status package words them (operators, scripts and the rollout controller compare them),
// plus dkc's own crash-loop and policy texts in the same style. Pure.

export const LoadError = 'failed to load config, see Kubelet log for details';
export const ValidateError = 'failed to validate config, see Kubelet log for details';
export const AllNilSubfieldsError = 'invalid NodeConfigSource, exactly one subfield must be non-nil, but all were nil';
export const DownloadError = 'failed to download config, see Kubelet log for details';
export const InternalError = 'internal failure, see Kubelet log for details';
/** dkc: the assigned config kept the agent from becoming healthy too many times in a row. */
export const CrashLoopError = 'failed to start with assigned config, see Kubelet log for details';

/** dkc: the node's own kubelet files (its --config file, the other drop-ins) do not load or validate, whatever is assigned. */
export const NodeFilesError = "failed to load the node's own config files, see Kubelet log for details";
/** dkc: a replacement --config file leaves out settings of the node's own file that the kubelet's API access needs. */
export const DroppedFieldsError = "config removes settings of the node's own config file, see Kubelet log for details";

export function syncError(reason: string): string {
  return `failed to sync: ${reason}`;
}

/** dkc: the config is denied by the NodeConfigPolicies that govern the node (named), in upstream's style. */
export type PolicyError = `config denied by NodeConfigPolicy ${string}, see Kubelet log for details`;
export function policyError(policies: readonly string[]): PolicyError {
  return `config denied by NodeConfigPolicy ${policies.map((p) => JSON.stringify(p)).join(', ')}, see Kubelet log for details`;
}
