// The NodeConfigRollout as the operator's command reads it (deploy/crds/nodeconfigrollouts.dkc.io.yaml). The names,
// the spec's parts and the phases are the controller's (src/controllers/rollout/resource.ts); the status is read here
// leniently, every field optional: a rollout the controller has not yet seen has no status at all, and one written
// by an older controller may lack newer fields.

import { GROUP, ROLLOUTS_PATH, type Phase } from '../../controllers/rollout/resource.js';

export {
  GROUP,
  KIND,
  VERSION,
  type IntOrString as IntOrPercent,
  type LabelSelector as NodeSelector,
  type LabelSelectorRequirement,
  type NodeState,
  type RolloutStrategy,
} from '../../controllers/rollout/resource.js';
import type { LabelSelector, NodeState, RolloutStrategy } from '../../controllers/rollout/resource.js';

export const RESOURCE = 'nodeconfigrollouts';
/** group/resource as kube-apiserver names it in messages (`nodeconfigrollouts.dkc.io "x" not found`). */
export const QUALIFIED_RESOURCE = `${RESOURCE}.${GROUP}`;

export interface ConfigMapRef {
  namespace: string;
  name: string;
  kubeletConfigKey: string;
}

export interface RolloutSpec {
  configSource?: { configMap?: ConfigMapRef };
  /** Instead of configSource: ConfigMaps the controller renders into one (status.renderedConfigMap). */
  layers?: { configMap: ConfigMapRef }[];
  nodeSelector?: LabelSelector;
  strategy?: RolloutStrategy;
  progressDeadlineSeconds?: number;
  maxFailures?: number;
  failurePolicy?: 'Revert' | 'Halt';
  paused?: boolean;
  revert?: boolean;
}

export type RolloutPhase = Phase;

export interface NodeProgress {
  state?: NodeState;
  batch?: number;
  updatedAt?: string;
  readySince?: string;
  /** Set on a node held, unchanged, until it is Ready with a fresh heartbeat: NotReady or HeartbeatStale. */
  waitingReason?: string;
  waitingSince?: string;
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
  waitingNodes?: number;
  renderedConfigMap?: string;
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
  return ROLLOUTS_PATH;
}

export function objectPath(name: string): string {
  return `${collectionPath()}/${encodeURIComponent(name)}`;
}
