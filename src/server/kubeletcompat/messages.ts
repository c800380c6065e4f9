// What KubeletVersionCompatibility admission says when it refuses: the request, then per kubelet minor the nodes and
// what their kubelet lacks or refuses (src/nodepolicy/compat.ts describeIncompatible) to a requester who may list
// nodes; to one who may not, what the kubelets lack or refuse and on how many nodes, with no name or version.

import { reasonOf, type Incompatibility } from '../../nodepolicy/compat.js';

const minor = (v: string): number => Number(v.split('.')[1]);
const nodeCount = (n: number): string => (n === 1 ? '1 node' : `${n} nodes`);

export const messages = {
  rollout: (which: string): string =>
    `the config does not suit the kubelet of some selected nodes: ${which}; set spec.strategy.skipIncompatible to leave them out`,
  assignment: (which: string): string => `the config does not suit the node's kubelet: ${which}`,
  configMap: (which: string): string => `the new content does not suit the kubelet of nodes assigned it: ${which}`,
  /** `unknown field singleProcessOOMKill (2 nodes)`: each reason once, oldest kubelet's first, with its node count. */
  counted: (list: readonly Incompatibility[]): string => {
    const byReason = new Map<string, number>();
    for (const i of [...list].sort((a, b) => minor(a.version) - minor(b.version)))
      byReason.set(reasonOf(i), (byReason.get(reasonOf(i)) ?? 0) + 1);
    return [...byReason].map(([reason, n]) => `${reason} (${nodeCount(n)})`).join('; ');
  },
};
