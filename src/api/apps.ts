// apps/v1 Deployment, ReplicaSet, DaemonSet and StatefulSet in kube's JSON shape (api:apps/v1/types.go), limited to
// the fields the workload controllers and kubectl read or write (the Pods they decide from are read through
// ./pods.ts). A Pod template's spec stays opaque: the controllers copy it, they never interpret it.
// Field names and optionality follow the Go JSON tags (omitempty → optional).

import type { ObjectLabelSelector } from './selectors.js';
import type { KubeObject, ObjectMeta, OpenString, Time } from './types.js';

/** intstr.IntOrString: a count, or a percentage written "N%". */
export type IntOrString = number | string;

export type ConditionStatus = OpenString<'True' | 'False' | 'Unknown'>;

/** metav1.LabelSelector as the apps kinds carry it (required on apps/v1). */
export type LabelSelector = ObjectLabelSelector;

export interface PodTemplateSpec {
  metadata?: ObjectMeta;
  /** Copied into each Pod as it is. */
  spec?: Record<string, unknown>;
}

// ---- Deployment -----------------------------------------------------------------------------

export interface RollingUpdateDeployment {
  maxUnavailable?: IntOrString;
  maxSurge?: IntOrString;
}

export interface DeploymentStrategy {
  type?: OpenString<'RollingUpdate' | 'Recreate'>;
  rollingUpdate?: RollingUpdateDeployment | null;
}

export interface DeploymentSpec {
  replicas?: number;
  selector: LabelSelector;
  template: PodTemplateSpec;
  strategy?: DeploymentStrategy;
  minReadySeconds?: number;
  revisionHistoryLimit?: number;
  paused?: boolean;
  progressDeadlineSeconds?: number;
}

export interface DeploymentCondition {
  type: OpenString<'Available' | 'Progressing' | 'ReplicaFailure'>;
  status: ConditionStatus;
  lastUpdateTime?: Time | null;
  lastTransitionTime?: Time | null;
  reason?: string;
  message?: string;
}

export interface DeploymentStatus {
  observedGeneration?: number;
  replicas?: number;
  updatedReplicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  unavailableReplicas?: number;
  /** 1.33 alpha (gate DeploymentReplicaSetTerminatingReplicas). */
  terminatingReplicas?: number;
  conditions?: DeploymentCondition[];
  collisionCount?: number;
}

export interface Deployment extends KubeObject {
  spec: DeploymentSpec;
  status?: DeploymentStatus;
}

// ---- ReplicaSet -----------------------------------------------------------------------------

export interface ReplicaSetSpec {
  replicas?: number;
  minReadySeconds?: number;
  selector: LabelSelector;
  template?: PodTemplateSpec;
}

export interface ReplicaSetCondition {
  type: OpenString<'ReplicaFailure'>;
  status: ConditionStatus;
  lastTransitionTime?: Time | null;
  reason?: string;
  message?: string;
}

export interface ReplicaSetStatus {
  replicas: number;
  fullyLabeledReplicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  /** 1.33 alpha (gate DeploymentReplicaSetTerminatingReplicas). */
  terminatingReplicas?: number;
  observedGeneration?: number;
  conditions?: ReplicaSetCondition[];
}

export interface ReplicaSet extends KubeObject {
  spec: ReplicaSetSpec;
  status?: ReplicaSetStatus;
}

// ---- DaemonSet ------------------------------------------------------------------------------

export interface RollingUpdateDaemonSet {
  maxUnavailable?: IntOrString;
  maxSurge?: IntOrString;
}

export interface DaemonSetUpdateStrategy {
  type?: OpenString<'RollingUpdate' | 'OnDelete'>;
  rollingUpdate?: RollingUpdateDaemonSet | null;
}

export interface DaemonSetSpec {
  selector: LabelSelector;
  template: PodTemplateSpec;
  updateStrategy?: DaemonSetUpdateStrategy;
  minReadySeconds?: number;
  revisionHistoryLimit?: number;
}

export interface DaemonSetCondition {
  type: string;
  status: ConditionStatus;
  lastTransitionTime?: Time | null;
  reason?: string;
  message?: string;
}

export interface DaemonSetStatus {
  currentNumberScheduled: number;
  numberMisscheduled: number;
  desiredNumberScheduled: number;
  numberReady: number;
  observedGeneration?: number;
  updatedNumberScheduled?: number;
  numberAvailable?: number;
  numberUnavailable?: number;
  collisionCount?: number;
  conditions?: DaemonSetCondition[];
}

export interface DaemonSet extends KubeObject {
  spec: DaemonSetSpec;
  status?: DaemonSetStatus;
}

// ---- StatefulSet ----------------------------------------------------------------------------

export interface RollingUpdateStatefulSetStrategy {
  partition?: number;
  maxUnavailable?: IntOrString;
}

export interface StatefulSetUpdateStrategy {
  type?: OpenString<'RollingUpdate' | 'OnDelete'>;
  rollingUpdate?: RollingUpdateStatefulSetStrategy | null;
}

export interface StatefulSetSpec {
  replicas?: number;
  selector: LabelSelector;
  template: PodTemplateSpec;
  serviceName?: string;
  podManagementPolicy?: OpenString<'OrderedReady' | 'Parallel'>;
  updateStrategy?: StatefulSetUpdateStrategy;
  minReadySeconds?: number;
  revisionHistoryLimit?: number;
  /** The first ordinal (StatefulSetStartOrdinal, GA in 1.31); 0 when absent. */
  ordinals?: StatefulSetOrdinals | null;
}

export interface StatefulSetOrdinals {
  start?: number;
}

export interface StatefulSetCondition {
  type: string;
  status: ConditionStatus;
  lastTransitionTime?: Time | null;
  reason?: string;
  message?: string;
}

export interface StatefulSetStatus {
  observedGeneration?: number;
  replicas: number;
  readyReplicas?: number;
  currentReplicas?: number;
  updatedReplicas?: number;
  currentRevision?: string;
  updateRevision?: string;
  collisionCount?: number;
  conditions?: StatefulSetCondition[];
  availableReplicas?: number;
}

export interface StatefulSet extends KubeObject {
  spec: StatefulSetSpec;
  status?: StatefulSetStatus;
}

// ---- well-known keys ------------------------------------------------------------------------

/** DefaultDeploymentUniqueLabelKey: on a Deployment's ReplicaSets (selector, labels, template) and their Pods. */
export const POD_TEMPLATE_HASH_LABEL = 'pod-template-hash';
/** ControllerRevisionHashLabelKey: the revision a DaemonSet's or StatefulSet's Pod was made from. */
export const CONTROLLER_REVISION_HASH_LABEL = 'controller-revision-hash';
/** DaemonSetTemplateGenerationKey (deprecated upstream, still written). */
export const POD_TEMPLATE_GENERATION_LABEL = 'pod-template-generation';
/** The annotation kube-apiserver keeps a DaemonSet's template generation in. */
export const DAEMONSET_TEMPLATE_GENERATION_ANNOTATION = 'deprecated.daemonset.template.generation';
export const STATEFULSET_POD_NAME_LABEL = 'statefulset.kubernetes.io/pod-name';
export const POD_INDEX_LABEL = 'apps.kubernetes.io/pod-index';
export const REVISION_ANNOTATION = 'deployment.kubernetes.io/revision';
export const REVISION_HISTORY_ANNOTATION = 'deployment.kubernetes.io/revision-history';
export const DESIRED_REPLICAS_ANNOTATION = 'deployment.kubernetes.io/desired-replicas';
export const MAX_REPLICAS_ANNOTATION = 'deployment.kubernetes.io/max-replicas';
/** controller.kubernetes.io/pod-deletion-cost: a lower cost is deleted first when a ReplicaSet scales down. */
export const POD_DELETION_COST_ANNOTATION = 'controller.kubernetes.io/pod-deletion-cost';
