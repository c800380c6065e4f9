// Which kubelet a node is, for comparing its configs by that kubelet's fields and defaults: the minor its Node
// reports in status.nodeInfo.kubeletVersion (`v1.31.0`; the agent's default `v1.22.17-dkc` is 1.22), and 1.22, the
// agent's default, when it reports none or one this library does not know. Pure.

import { BASE_KUBELET_VERSION, kubeletVersion, type KubeletVersion } from '../kubeletconfig/index.js';

/** The kubelet minor a Node reports, as the library's KubeletVersion. */
export function nodeKubeletVersion(node: object | undefined): KubeletVersion {
  const reported = (node as { status?: { nodeInfo?: { kubeletVersion?: unknown } } } | undefined)?.status?.nodeInfo
    ?.kubeletVersion;
  const minor = typeof reported === 'string' ? /^v?(1\.\d+)(?:\.|$)/.exec(reported)?.[1] : undefined;
  try {
    return kubeletVersion(minor ?? BASE_KUBELET_VERSION);
  } catch {
    return kubeletVersion(BASE_KUBELET_VERSION);
  }
}
