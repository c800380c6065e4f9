// What the node says when it refuses a Pod, in the kubelet's words (pkg/kubelet/lifecycle/predicate.go, kubelet.go
// rejectPod): the reason and message of the rejection, and the pod status it leaves.

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
