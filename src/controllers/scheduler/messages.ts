// What the scheduler says, in kube-scheduler's words (pkg/scheduler/framework: FitError, the filter plugins'
// reasons, DefaultPreemption; schedule_one.go): per-node reasons, the FailedScheduling text and the Scheduled event.

export const reasons = {
  unschedulable: 'node(s) were unschedulable',
  nodeName: "node(s) didn't match the requested node name",
  // 1.31–1.33 name the taint; later releases say `node(s) had untolerated taint(s)`.
  untoleratedTaint: (key: string, value: string) => `node(s) had untolerated taint {${key}: ${value}}`,
  nodeAffinity: "node(s) didn't match Pod's node affinity/selector",
  affinityConflict: 'pod affinity terms conflict',
  notInPreFilterResult: (plugins: readonly string[]) => `node(s) didn't satisfy plugin(s) [${plugins.join(' ')}]`,
  preemptionNotHelpful: 'Preemption is not helpful for scheduling',
  noVictims: 'No preemption victims found for incoming pod',
};

export const messages = {
  noNodes: 'no nodes available to schedule pods',
  /** `0/<n> nodes are available: <histogram>.` */
  fitError: (nodes: number, detail: string) => `0/${nodes} nodes are available: ${detail}.`,
  preemption: (detail: string) => `preemption: ${detail}`,
  preemptionNever: 'not eligible due to preemptionPolicy=Never.',
  scheduled: (namespace: string, pod: string, node: string) => `Successfully assigned ${namespace}/${pod} to ${node}`,
};

export const events = {
  failedScheduling: 'FailedScheduling',
  scheduled: 'Scheduled',
  /** The PodScheduled=False reason. */
  unschedulable: 'Unschedulable',
};
