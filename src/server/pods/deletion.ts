// A Pod's graceful deletion, as kube-apiserver's pod strategy (CheckGracefulDelete) and the generic BeforeDelete have
// it: a Pod bound to a node and not yet terminal is marked — deletionTimestamp now + grace, deletionGracePeriodSeconds
// grace — and kept for its kubelet to stop it; grace is the delete's gracePeriodSeconds, else the Pod's
// terminationGracePeriodSeconds. A later delete may only shorten it; a grace-0 delete (the kubelet's confirmation,
// or a forced delete) removes the Pod, as does any delete of an unbound or terminal Pod. Pure.

import type { KubeObject } from '../../api/types.js';
import type { DeleteOptions } from '../deletion.js';
import type { DeleteDecision, DeletionStrategy } from '../resourcedef.js';
import { formatTime } from '../../util/clock.js';
import { isBeingDeleted } from '../finalizers.js';
import type { PodObject } from './types.js';

const TERMINAL = new Set(['Succeeded', 'Failed']);

/** CheckGracefulDelete: the grace period this delete asks of this Pod. */
export function podGracePeriod(pod: PodObject, options: DeleteOptions): number {
  const spec = pod.spec ?? {};
  if (!spec.nodeName || TERMINAL.has(pod.status?.phase ?? '')) return 0;
  const grace = options.gracePeriodSeconds ?? spec.terminationGracePeriodSeconds ?? 0;
  return grace < 0 ? 1 : grace;
}

const plusSeconds = (time: string, seconds: number) => formatTime(new Date(Date.parse(time) + seconds * 1000));

function marked(pod: KubeObject, deletionTimestamp: string, grace: number): DeleteDecision {
  const meta = { ...pod.metadata, deletionTimestamp, deletionGracePeriodSeconds: grace };
  if (!isBeingDeleted(pod) && typeof meta.generation === 'number' && meta.generation > 0) meta.generation += 1;
  return { store: { ...pod, metadata: meta } };
}

export function podDeletion(pod: KubeObject, now: string, options: DeleteOptions): DeleteDecision {
  const grace = podGracePeriod(pod, options);
  const meta = pod.metadata;
  if (!isBeingDeleted(pod)) return grace === 0 ? undefined : marked(pod, plusSeconds(now, grace), grace);
  const stored = meta.deletionGracePeriodSeconds;
  // Already due (grace 0 stored): the generic rule removes it, or keeps it for its finalizers.
  if (stored === undefined || stored === null || stored === 0) return undefined;
  if (grace >= stored) return { keep: true };
  if (grace === 0) return undefined;
  return marked(pod, plusSeconds(plusSeconds(meta.deletionTimestamp as string, -stored), grace), grace);
}

export const podDeletionStrategy: DeletionStrategy = {
  onDelete: podDeletion,
  mayGoByUpdate: () => true,
};
