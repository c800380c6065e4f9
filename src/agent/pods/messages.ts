// What the node says of the Pods it runs: why it refuses one (the kubelet's words, pkg/kubelet/lifecycle/predicate.go,
// kubelet.go rejectPod), the CPU and memory managers' start-up errors, and what its Pod runner logs.

import type { RunningPod } from './types.js';

export const admission = {
  outOf: (resource: string) => `OutOf${resource}`,
  insufficient: (resource: string, requested: bigint, used: bigint, capacity: bigint) =>
    `Node didn't have enough resource: ${resource}, requested: ${requested}, used: ${used}, capacity: ${capacity}`,
  predicateFailed: (plugin: string, why: string) => `Predicate ${plugin} failed: ${why}`,
  nodeAffinity: "node(s) didn't match Pod's node affinity/selector",
  nodeName: "node(s) didn't match the requested node name",
  untoleratedTaints: "node(s) had taints that the pod didn't tolerate",
  rejected: (message: string) => `Pod was rejected: ${message}`,
};

// The CPU and memory managers' start-up errors (pkg/kubelet/cm/cpumanager, memorymanager: state_checkpoint.go,
// cpu_manager.go NewManager, checkpointmanager/errors).
export const checkpoints = {
  cpuPolicyMismatch: (configured: string, stored: string) =>
    `configured policy ${JSON.stringify(configured)} differs from state checkpoint policy ${JSON.stringify(stored)}`,
  memoryPolicyMismatch: (configured: string, stored: string) =>
    `[memorymanager] configured policy ${JSON.stringify(configured)} differs from state checkpoint policy ${JSON.stringify(stored)}`,
  corrupt: 'checkpoint is corrupted',
  unreadable: (why: string) => `could not unmarshal checkpoint: ${why}`,
  cpuRestore: (inner: string, file: string) =>
    `could not restore state from checkpoint: ${inner}, please drain this node and delete the CPU manager checkpoint file ${JSON.stringify(file)} before restarting Kubelet`,
  memoryRestore: (inner: string, file: string) =>
    `could not restore state from checkpoint: ${inner}, please drain this node and delete the memory manager checkpoint file ${JSON.stringify(file)} before restarting Kubelet`,
  cpuReservationUnknown: '[cpumanager] unable to determine reserved CPU resources for static policy',
  /** NewManager's zero check; unreachable through the node allocatable reservation, which drops a zero sum. */
  cpuReservationZero:
    '[cpumanager] the static policy requires systemreserved.cpu + kubereserved.cpu to be greater than zero',
  startCpuManager: (why: string) => `start cpu manager error: ${why}`,
  startMemoryManager: (why: string) => `start memory manager error: ${why}`,
  /** The agent's one line when its container manager does not start (the kubelet logs it with err=). */
  startFailed: (why: string) => `Failed to start ContainerManager: ${why}`,
};

// What the node's Pod runner logs (./manager.ts).
type Named = { namespace: string; name: string };
const ref = (p: Named) => `${p.namespace}/${p.name}`;

export const podLogs = {
  started: (p: Named, ip: string) => `pod ${ref(p)} started (IP ${ip})`,
  rejected: (p: Named, reason: string, message: string) => `pod ${ref(p)} rejected at admission: ${reason}: ${message}`,
  stopped: (p: Named) => `pod ${ref(p)} is being deleted: its containers stopped`,
  removed: (p: Named) => `Pod fully terminated and removed from etcd pod="${ref(p)}"`,
  forgotten: (p: RunningPod) => `pod ${ref(p)} (uid ${p.uid}) is gone from the API: what ran for it is ended`,
  noAddress: (range: string) => `no free Pod IP left in ${range}0/24`,
  syncFailed: (uid: string, why: string) => `syncing pod uid ${uid} failed (retried on its next change): ${why}`,
  watchFailed: (why: string) => `watching the node's pods: ${why}`,
  synced: (bound: number, running: number) =>
    `pod runner synced: ${bound} pod(s) bound to the node, ${running} running in its runtime`,
  startFailed: (why: string) => `the node's pods cannot be run: ${why}`,
};
