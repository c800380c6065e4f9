// The JSON shapes of the Pod fields the server reads and writes (core/v1), only as far as the server's own rules
// look into them; everything else of a Pod is kept as the client sent it.

import type { KubeObject } from '../../api/types.js';

export interface Toleration {
  key?: string;
  operator?: string;
  value?: string;
  effect?: string;
  tolerationSeconds?: number | null;
}

export interface ResourceRequirements {
  limits?: Record<string, unknown> | null;
  requests?: Record<string, unknown> | null;
}

export interface ContainerPort {
  containerPort?: number;
  protocol?: string;
  [k: string]: unknown;
}

export interface Container {
  name?: string;
  image?: string;
  resources?: ResourceRequirements | null;
  ports?: ContainerPort[] | null;
  imagePullPolicy?: string;
  terminationMessagePath?: string;
  terminationMessagePolicy?: string;
  [k: string]: unknown;
}

export interface PodSpec {
  containers?: Container[] | null;
  initContainers?: Container[] | null;
  restartPolicy?: string;
  terminationGracePeriodSeconds?: number | null;
  activeDeadlineSeconds?: number | null;
  dnsPolicy?: string;
  nodeSelector?: Record<string, string> | null;
  serviceAccountName?: string;
  nodeName?: string;
  schedulerName?: string;
  tolerations?: Toleration[] | null;
  priorityClassName?: string;
  priority?: number | null;
  preemptionPolicy?: string | null;
  enableServiceLinks?: boolean | null;
  securityContext?: Record<string, unknown> | null;
  schedulingGates?: unknown[] | null;
  readinessGates?: { conditionType?: string }[] | null;
  [k: string]: unknown;
}

export interface PodCondition {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string | null;
  lastProbeTime?: string | null;
  [k: string]: unknown;
}

export interface ContainerState {
  waiting?: { reason?: string; message?: string } | null;
  running?: { startedAt?: string } | null;
  terminated?: { reason?: string; exitCode?: number; signal?: number } | null;
}

export interface ContainerStatus {
  name?: string;
  ready?: boolean;
  restartCount?: number;
  state?: ContainerState | null;
  lastState?: ContainerState | null;
  [k: string]: unknown;
}

export interface PodStatus {
  phase?: string;
  reason?: string;
  message?: string;
  conditions?: PodCondition[] | null;
  podIP?: string;
  nominatedNodeName?: string;
  qosClass?: string;
  initContainerStatuses?: ContainerStatus[] | null;
  containerStatuses?: ContainerStatus[] | null;
  [k: string]: unknown;
}

export interface PodObject extends KubeObject {
  spec?: PodSpec;
  status?: PodStatus;
}
