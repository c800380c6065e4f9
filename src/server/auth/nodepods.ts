// What NodeRestriction lets a node do with Pods (plugin/pkg/admission/noderestriction admitPod, admitPodStatus,
// admitPodEviction): create only mirror Pods bound to itself, delete only Pods bound to itself (the kubelet's grace-0
// confirmation), write the status of Pods bound to itself, evict only Pods bound to itself; nothing else. Each answer
// is the reason of the refusal in upstream's words, or undefined when the write may go on. Pure.

import type { AdmissionAttributes } from '../authz.js';

export const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';

const nodeNameOf = (o: unknown): string => (o as { spec?: { nodeName?: string } } | undefined)?.spec?.nodeName ?? '';
const q = (s: string) => JSON.stringify(s);

function createRefusal(a: AdmissionAttributes, nodeName: string): string | undefined {
  const annotations = a.object?.metadata.annotations ?? {};
  if (!Object.hasOwn(annotations, MIRROR_POD_ANNOTATION))
    return `pod does not have "${MIRROR_POD_ANNOTATION}" annotation, node ${q(nodeName)} can only create mirror pods`;
  if (nodeNameOf(a.object) !== nodeName)
    return `node ${q(nodeName)} can only create pods with spec.nodeName set to itself`;
  return undefined;
}

/**
 * Why a node's write of a Pod (or of its status or eviction) is refused. `pod` is the Pod as stored (for an eviction,
 * read by the caller; for the others, the request's old object).
 */
export function nodePodRefusal(a: AdmissionAttributes, nodeName: string, pod: unknown): string | undefined {
  if (a.subresource === '') {
    if (a.operation === 'CREATE') return createRefusal(a, nodeName);
    if (a.operation === 'DELETE')
      return nodeNameOf(pod) === nodeName
        ? undefined
        : `node ${q(nodeName)} can only delete pods with spec.nodeName set to itself`;
    return `unexpected operation ${q(a.operation)}, node ${q(nodeName)} can only create and delete mirror pods`;
  }
  if (a.subresource === 'status')
    return nodeNameOf(pod) === nodeName
      ? undefined
      : `node ${q(nodeName)} can only update pod status for pods with spec.nodeName set to itself`;
  if (a.subresource === 'eviction')
    return nodeNameOf(pod) === nodeName
      ? undefined
      : `node ${q(nodeName)} can only evict pods with spec.nodeName set to itself`;
  return `unexpected subresource ${q(a.subresource)}`;
}
