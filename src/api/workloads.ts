// The JSON shapes of core/v1 Pods and policy/v1 PodDisruptionBudgets as the workload decisions read them: the
// disruption controller's status computation, the scheduler's filters and the node's admission. Only the fields those
// decisions use are typed; field names and optionality follow the Go types' JSON tags. Types only, no run time.

import type { KubeObject, OpenString, Quantity, Taint, Time } from './types.js';

// ---- core/v1 scheduling constraints --------------------------------------------------------------

export type TolerationOperator = 'Exists' | 'Equal';

export interface Toleration {
  /** Empty with operator Exists: every key. */
  key?: string;
  /** Empty means Equal. */
  operator?: OpenString<TolerationOperator>;
  value?: string;
  /** Empty: every effect. */
  effect?: OpenString<Taint['effect']>;
  tolerationSeconds?: number | null;
}

export type NodeSelectorOperator = 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'Gt' | 'Lt';

export interface NodeSelectorRequirement {
  key: string;
  operator: OpenString<NodeSelectorOperator>;
  values?: string[];
}

export interface NodeSelectorTerm {
  matchExpressions?: NodeSelectorRequirement[];
  /** Only `metadata.name` is a valid key. */
  matchFields?: NodeSelectorRequirement[];
}

export interface NodeSelector {
  nodeSelectorTerms: NodeSelectorTerm[];
}

export interface NodeAffinity {
  requiredDuringSchedulingIgnoredDuringExecution?: NodeSelector | null;
}

export interface Affinity {
  nodeAffinity?: NodeAffinity | null;
}

// ---- core/v1 containers and resources ------------------------------------------------------------

export interface ResourceRequirements {
  requests?: Record<string, Quantity>;
  limits?: Record<string, Quantity>;
}

export interface Container {
  name: string;
  image?: string;
  resources?: ResourceRequirements;
  /** Init containers only: `Always` makes a sidecar. */
  restartPolicy?: string;
}

// ---- core/v1 Pod --------------------------------------------------------------------------------

export type PodPhase = 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Unknown';

export interface PodCondition {
  type: OpenString<'PodScheduled' | 'Initialized' | 'ContainersReady' | 'Ready' | 'DisruptionTarget'>;
  status: OpenString<'True' | 'False' | 'Unknown'>;
  reason?: string;
  message?: string;
  lastProbeTime?: Time | null;
  lastTransitionTime?: Time | null;
}

export interface PodSpec {
  nodeName?: string;
  nodeSelector?: Record<string, string>;
  affinity?: Affinity | null;
  tolerations?: Toleration[];
  containers: Container[];
  initContainers?: Container[];
  overhead?: Record<string, Quantity>;
  priority?: number | null;
  preemptionPolicy?: OpenString<'PreemptLowerPriority' | 'Never'> | null;
  schedulerName?: string;
  terminationGracePeriodSeconds?: number | null;
}

/** A container's status as the kubelet reports it (one of running, terminated or waiting). */
export interface ContainerStatus {
  name: string;
  image: string;
  imageID: string;
  containerID?: string;
  ready: boolean;
  started?: boolean;
  restartCount: number;
  state: {
    running?: { startedAt: Time };
    terminated?: { exitCode: number; reason?: string; startedAt?: Time; finishedAt?: Time; containerID?: string };
    waiting?: { reason?: string; message?: string };
  };
}

export interface PodStatus {
  phase?: OpenString<PodPhase>;
  conditions?: PodCondition[];
  reason?: string;
  message?: string;
  nominatedNodeName?: string;
  hostIP?: string;
  hostIPs?: { ip: string }[];
  podIP?: string;
  podIPs?: { ip: string }[];
  startTime?: Time;
  containerStatuses?: ContainerStatus[];
  qosClass?: OpenString<'BestEffort' | 'Burstable' | 'Guaranteed'>;
}

/** The full form of core/v1 Pod; types.ts keeps the minimal one that `describe node` and the node authorizer read. */
export interface Pod extends KubeObject {
  spec?: PodSpec;
  status?: PodStatus;
}

// ---- meta/v1 LabelSelector and Condition ---------------------------------------------------------

export interface LabelSelectorRequirement {
  key: string;
  operator: string;
  values?: string[];
}

/** metav1.LabelSelector: `null` selects nothing, `{}` everything. */
export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

/** metav1.Condition. */
export interface Condition {
  type: string;
  status: OpenString<'True' | 'False' | 'Unknown'>;
  observedGeneration?: number;
  lastTransitionTime: Time;
  reason: string;
  message: string;
}

// ---- policy/v1 PodDisruptionBudget ---------------------------------------------------------------

/** intstr.IntOrString as JSON: a number, or a string (a percentage such as "50%"). */
export type IntOrString = number | string;

export interface PodDisruptionBudgetSpec {
  minAvailable?: IntOrString | null;
  maxUnavailable?: IntOrString | null;
  selector?: LabelSelector | null;
  unhealthyPodEvictionPolicy?: OpenString<'IfHealthyBudget' | 'AlwaysAllow'> | null;
}

export interface PodDisruptionBudgetStatus {
  observedGeneration?: number;
  /** Pod name → when the Eviction API let it go. */
  disruptedPods?: Record<string, Time>;
  disruptionsAllowed: number;
  currentHealthy: number;
  desiredHealthy: number;
  expectedPods: number;
  conditions?: Condition[];
}

export interface PodDisruptionBudget extends KubeObject {
  spec?: PodDisruptionBudgetSpec;
  status?: PodDisruptionBudgetStatus;
}
