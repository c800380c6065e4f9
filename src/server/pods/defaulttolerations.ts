// The DefaultTolerationSeconds admission plugin (plugin/pkg/admission/defaulttolerationseconds), on by default in
// kube-apiserver: a Pod created without a toleration of the node.kubernetes.io/not-ready or …/unreachable NoExecute
// taint gets one, Exists, for 300 s — so the taint eviction controller deletes its Pods five minutes after their node
// stops answering, not at once.

import type { Toleration } from '../../api/workloads.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../authz.js';

export const DEFAULT_TOLERATION_SECONDS = 300;
const NOT_READY = 'node.kubernetes.io/not-ready';
const UNREACHABLE = 'node.kubernetes.io/unreachable';

/** Whether `t` already covers `key`'s NoExecute taint as the plugin reads it: that key or none, NoExecute or none. */
const covers = (t: Toleration, key: string) => (t.key === key || !t.key) && (t.effect === 'NoExecute' || !t.effect);

/** The tolerations a new Pod is stored with: its own, then the defaults it lacks (not-ready, then unreachable). Pure. */
export function withDefaultTolerations(
  tolerations: readonly Toleration[],
  seconds = DEFAULT_TOLERATION_SECONDS,
): Toleration[] {
  const added = [NOT_READY, UNREACHABLE]
    .filter((key) => !tolerations.some((t) => covers(t, key)))
    .map((key) => ({ key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: seconds }));
  return [...tolerations, ...added];
}

export const defaultTolerationSeconds: AdmissionPlugin = {
  name: 'DefaultTolerationSeconds',
  admit(a: AdmissionAttributes): void {
    if (a.operation !== 'CREATE' || a.subresource !== '' || a.resource.group !== '' || a.resource.plural !== 'pods')
      return;
    const spec = (a.object as { spec?: { tolerations?: Toleration[] } } | undefined)?.spec;
    if (!spec) return;
    spec.tolerations = withDefaultTolerations(spec.tolerations ?? []);
  },
};
