// The part of Node.status the node lifecycle owns — conditions, addresses, capacity, allocatable,
// daemonEndpoints, nodeInfo — built the way the kubelet's status setters build it: condition transition
// times survive an unchanged status, heartbeats always move. Pure; `status.config` is not ours (the dynamic
// config controller writes it) and never appears here.

import { deepEqual } from '../../api/equal.js';
import type { NodeAddress, NodeCondition, NodeDaemonEndpoints, NodeSystemInfo } from '../../api/types.js';
import { formatResourceList, type ResourceList } from './capacity.js';
import { formatTime } from '../../util/clock.js';
import { goArch, goOS, type HostSystemInfo } from './host.js';

/** What this agent reports as its kubelet version: the upstream release it mirrors, marked as dkc. */
export const KUBELET_VERSION = 'v1.22.17-dkc';
export const KUBE_PROXY_VERSION = 'v1.22.17-dkc';
/**
 * The User-Agent of the node's API requests, in client-go's form as the kubelet sends it (`kubelet/<gitVersion>
 * (<os>/<arch>) kubernetes/<commit>`): kube-apiserver names a write's field manager after its program, so the node's
 * registration, status and Lease are managed by `kubelet` as on a real cluster.
 */
export function kubeletUserAgent(gitVersion: string): string {
  return `kubelet/${gitVersion} (${goOS()}/${goArch()}) kubernetes/dkc`;
}

/** There is no container runtime behind the agent; the scheme names what answers instead. */
export const CONTAINER_RUNTIME_VERSION = 'dkc://0.1.0';

/** The fields of Node.status this module owns, and nothing else. */
export interface OwnNodeStatus {
  conditions: NodeCondition[];
  addresses: NodeAddress[];
  capacity: Record<string, string>;
  allocatable: Record<string, string>;
  daemonEndpoints: NodeDaemonEndpoints;
  nodeInfo: NodeSystemInfo;
}

/** The status fields OwnNodeStatus covers, for callers that must patch exactly these. */
export const OWN_STATUS_FIELDS = [
  'conditions',
  'addresses',
  'capacity',
  'allocatable',
  'daemonEndpoints',
  'nodeInfo',
] as const;

export interface NodeStatusInput {
  /** The kubelet's serving port, advertised as daemonEndpoints.kubeletEndpoint.Port. */
  config: { port: number };
  capacity: ResourceList;
  allocatable: ResourceList;
  nodeIP: string;
  hostname: string;
  system: HostSystemInfo;
  kubeletVersion?: string;
  kubeProxyVersion?: string;
  containerRuntimeVersion?: string;
  now: Date;
  ready: boolean;
  /** Why the node is not ready (the Ready condition's message); ignored when ready. */
  reason?: string;
  /** The conditions currently on the Node, so unchanged ones keep their lastTransitionTime. */
  previousConditions?: readonly NodeCondition[];
  /**
   * Conditions other parts of the agent own (the dynamic config controller's ConfigOK), each with its own timestamps,
   * given the conditions currently on the Node. They go in the same list, which the status patch replaces whole.
   */
  extraConditions?: (previous: readonly NodeCondition[] | undefined) => NodeCondition[];
}

interface ConditionSpec {
  type: string;
  status: 'True' | 'False';
  reason: string;
  message: string;
}

function desiredConditions(input: NodeStatusInput): ConditionSpec[] {
  // The kubelet's setter order, which is also what `kubectl describe node` shows.
  return [
    {
      type: 'MemoryPressure',
      status: 'False',
      reason: 'KubeletHasSufficientMemory',
      message: 'kubelet has sufficient memory available',
    },
    {
      type: 'DiskPressure',
      status: 'False',
      reason: 'KubeletHasNoDiskPressure',
      message: 'kubelet has no disk pressure',
    },
    {
      type: 'PIDPressure',
      status: 'False',
      reason: 'KubeletHasSufficientPID',
      message: 'kubelet has sufficient PID available',
    },
    input.ready
      ? { type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status' }
      : { type: 'Ready', status: 'False', reason: 'KubeletNotReady', message: input.reason ?? 'kubelet is not ready' },
  ];
}

/** The conditions at `now`: heartbeat is now; transition time is kept unless the status flipped. */
export function buildConditions(input: NodeStatusInput): NodeCondition[] {
  const now = formatTime(input.now);
  const previous = new Map((input.previousConditions ?? []).map((c) => [c.type, c]));
  return desiredConditions(input).map((spec) => {
    const prev = previous.get(spec.type);
    const keep = prev !== undefined && prev.status === spec.status && typeof prev.lastTransitionTime === 'string';
    return {
      type: spec.type,
      status: spec.status,
      lastHeartbeatTime: now,
      lastTransitionTime: keep ? prev.lastTransitionTime! : now,
      reason: spec.reason,
      message: spec.message,
    };
  });
}

export function buildNodeStatus(input: NodeStatusInput): OwnNodeStatus {
  return {
    conditions: [...buildConditions(input), ...(input.extraConditions?.(input.previousConditions) ?? [])],
    addresses: [
      { type: 'InternalIP', address: input.nodeIP },
      { type: 'Hostname', address: input.hostname },
    ],
    capacity: formatResourceList(input.capacity),
    allocatable: formatResourceList(input.allocatable),
    daemonEndpoints: { kubeletEndpoint: { Port: input.config.port } },
    nodeInfo: {
      machineID: input.system.machineID,
      systemUUID: input.system.systemUUID,
      bootID: input.system.bootID,
      kernelVersion: input.system.kernelVersion,
      osImage: input.system.osImage,
      containerRuntimeVersion: input.containerRuntimeVersion ?? CONTAINER_RUNTIME_VERSION,
      kubeletVersion: input.kubeletVersion ?? KUBELET_VERSION,
      kubeProxyVersion: input.kubeProxyVersion ?? KUBE_PROXY_VERSION,
      operatingSystem: input.system.operatingSystem,
      architecture: input.system.architecture,
    },
  };
}

/** The owned fields of a Node.status (the server's copy, say); everything else, status.config included, is dropped. */
export function pickOwnStatus(status: object | null | undefined): Partial<OwnNodeStatus> {
  const src = (status ?? {}) as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const f of OWN_STATUS_FIELDS) if (src[f] !== undefined) out[f] = src[f];
  return out;
}

function withoutHeartbeats(s: Partial<OwnNodeStatus>): unknown {
  return { ...s, conditions: (s.conditions ?? []).map(({ lastHeartbeatTime: _hb, ...rest }) => rest) };
}

/** nodeStatusHasChanged: any difference in the owned fields except condition heartbeats. */
export function nodeStatusChanged(before: Partial<OwnNodeStatus> | undefined, after: OwnNodeStatus): boolean {
  if (before === undefined) return true;
  return !deepEqual(withoutHeartbeats(pickOwnStatus(before)), withoutHeartbeats(pickOwnStatus(after)));
}

/**
 * The node status events the kubelet records when a condition appears or flips (NodeReady, NodeNotReady,
 * NodeHasSufficientMemory, …), in condition order.
 */
export function conditionEvents(
  previous: readonly NodeCondition[] | undefined,
  next: readonly NodeCondition[],
): string[] {
  const before = new Map((previous ?? []).map((c) => [c.type, c.status]));
  const names: Record<string, [whenTrue: string, whenFalse: string]> = {
    MemoryPressure: ['NodeHasInsufficientMemory', 'NodeHasSufficientMemory'],
    DiskPressure: ['NodeHasDiskPressure', 'NodeHasNoDiskPressure'],
    PIDPressure: ['NodeHasInsufficientPID', 'NodeHasSufficientPID'],
    Ready: ['NodeReady', 'NodeNotReady'],
  };
  const out: string[] = [];
  for (const c of next) {
    const pair = names[c.type];
    if (pair === undefined || before.get(c.type) === c.status) continue;
    out.push(c.status === 'True' ? pair[0] : pair[1]);
  }
  return out;
}
