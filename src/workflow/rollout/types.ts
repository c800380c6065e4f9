// The NodeConfigRollout as the operator's command writes and reads it (deploy/crds/nodeconfigrollouts.dkc.io.yaml).
// The names, the spec's parts, the phases and the status are the API's (src/api/dkc/rollout.ts); the status is
// optional: a rollout the controller has not yet seen has none.

import {
  GROUP,
  ROLLOUTS_PATH,
  type LabelSelector,
  type RolloutStatus,
  type RolloutStrategy,
} from '../../api/dkc/rollout.js';

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

export interface NodeConfigRollout {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name: string;
    resourceVersion?: string;
    creationTimestamp?: string;
    generation?: number;
    [k: string]: unknown;
  };
  spec: RolloutSpec;
  status?: RolloutStatus;
  [k: string]: unknown;
}

export function collectionPath(): string {
  return ROLLOUTS_PATH;
}

export function objectPath(name: string): string {
  return `${collectionPath()}/${encodeURIComponent(name)}`;
}
