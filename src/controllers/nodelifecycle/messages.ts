// The node lifecycle controller's log lines, in kube-controller-manager's words where it has them.

export const logs = {
  markedUnknown: (node: string, silentMs: number) =>
    `Node ${node} hasn't been updated for ${(silentMs / 1000).toFixed(1)}s; setting its conditions to Unknown`,
  taintsChanged: (node: string, taints: string[]) =>
    `Updating the readiness taints of node ${node}: [${taints.join(', ')}]`,
  updateFailed: (node: string, why: string) => `Error updating node ${node}, will retry: ${why}`,
};
