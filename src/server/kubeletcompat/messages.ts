// What KubeletVersionCompatibility admission says when it refuses: the request, then per kubelet minor the nodes and
// what their kubelet lacks or refuses (src/nodepolicy/compat.ts describeIncompatible).

export const messages = {
  rollout: (which: string): string =>
    `the config does not suit the kubelet of some selected nodes: ${which}; set spec.strategy.skipIncompatible to leave them out`,
  assignment: (which: string): string => `the config does not suit the node's kubelet: ${which}`,
  configMap: (which: string): string => `the new content does not suit the kubelet of nodes assigned it: ${which}`,
};
