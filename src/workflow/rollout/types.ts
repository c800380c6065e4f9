// The NodeConfigRollout as the operator's command reads and writes it (deploy/crds/nodeconfigrollouts.dkc.io.yaml).
// Every status field is optional: a rollout the controller has not yet seen has no status at all, and a rollout
// served by an older controller may lack newer fields.

export const GROUP = 'dkc.io';
export const VERSION = 'v1alpha1';
export const KIND = 'NodeConfigRollout';
export const RESOURCE = 'nodeconfigrollouts';
/** group/resource as kube-apiserver names it in messages (`nodeconfigrollouts.dkc.io "x" not found`). */
export const QUALIFIED_RESOURCE = `${RESOURCE}.${GROUP}`;

export type IntOrPercent = number | string;

export interface ConfigMapRef {
  namespace: string;
  name: string;
  kubeletConfigKey: string;
}

export interface LabelSelectorRequirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
  values?: string[];
}

export interface NodeSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

export interface RolloutStrategy {
  canary?: IntOrPercent;
  maxUnavailable?: IntOrPercent;
  soakSeconds?: number;
  pauseAfterCanary?: boolean;
}

export interface RolloutSpec {
  configSource?: { configMap?: ConfigMapRef };
  nodeSelector?: NodeSelector;
  strategy?: RolloutStrategy;
  progressDeadlineSeconds?: number;
  maxFailures?: number;
  failurePolicy?: 'Revert' | 'Halt';
  paused?: boolean;
  revert?: boolean;
}

export type RolloutPhase = 'Pending' | 'Progressing' | 'Paused' | 'Succeeded' | 'Halted' | 'Reverting' | 'Reverted';

export type NodeState = 'Pending' | 'InFlight' | 'Succeeded' | 'Failed' | 'Reverted' | 'Overridden';

export interface NodeProgress {
  state?: NodeState;
  batch?: number;
  updatedAt?: string;
  readySince?: string;
  reason?: string;
  message?: string;
}

export interface RolloutFailure {
  node?: string;
  reason?: string;
  message?: string;
}

export interface RolloutCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
}

export interface RolloutStatus {
  phase?: RolloutPhase;
  observedGeneration?: number;
  targetNodes?: number;
  updatedNodes?: number;
  succeededNodes?: number;
  failedNodes?: number;
  currentBatch?: number;
  failures?: RolloutFailure[];
  conditions?: RolloutCondition[];
  nodes?: Record<string, NodeProgress>;
  startTime?: string | null;
  completionTime?: string | null;
}

export interface NodeConfigRollout {
  apiVersion?: string;
  kind?: string;
  metadata: { name: string; resourceVersion?: string; creationTimestamp?: string; generation?: number; [k: string]: unknown };
  spec: RolloutSpec;
  status?: RolloutStatus;
  [k: string]: unknown;
}

export const FINAL_PHASES: ReadonlySet<RolloutPhase> = new Set(['Succeeded', 'Halted', 'Reverted']);

export function collectionPath(): string {
  return `/apis/${GROUP}/${VERSION}/${RESOURCE}`;
}

export function objectPath(name: string): string {
  return `${collectionPath()}/${encodeURIComponent(name)}`;
}
