// A StatefulSet Pod's identity (k8s:pkg/controller/statefulset/stateful_set_utils.go getParentNameAndOrdinal,
// newStatefulSetPod, initIdentity, identityMatches, newVersionedStatefulSetPod): the name `<set>-<ordinal>`, the
// labels statefulset.kubernetes.io/pod-name, apps.kubernetes.io/pod-index and controller-revision-hash, the
// hostname and, with a governing Service, the subdomain. Pure.

import {
  CONTROLLER_REVISION_HASH_LABEL,
  POD_INDEX_LABEL,
  STATEFULSET_POD_NAME_LABEL,
  type PodTemplateSpec,
  type StatefulSet,
} from '../../api/apps.js';
import { type PodView } from '../../api/pods.js';
import { newControllerRef } from '../workload/controllerref.js';
import { podFromTemplate, type PodToCreate } from '../workload/podtemplate.js';
import { computeHash } from '../workload/templatehash.js';

const ORDINAL_NAME = /^(.*)-([0-9]+)$/;

/** getParentNameAndOrdinal: the ordinal a Pod's name ends in, -1 when it ends in none. */
export function podOrdinal(pod: { metadata: { name?: string } }): { parent: string; ordinal: number } {
  const m = ORDINAL_NAME.exec(pod.metadata.name ?? '');
  if (!m) return { parent: '', ordinal: -1 };
  const ordinal = Number(m[2]);
  return Number.isSafeInteger(ordinal) && ordinal < 2 ** 31 ? { parent: m[1]!, ordinal } : { parent: '', ordinal: -1 };
}

/** isMemberOf: the Pod's name is the set's name, a dash and an ordinal; the set claims no other Pod. */
export const isMemberOf = (set: StatefulSet, pod: { metadata: { name?: string } }): boolean =>
  podOrdinal(pod).parent === (set.metadata.name ?? '');

export const startOrdinal = (set: StatefulSet): number => set.spec.ordinals?.start ?? 0;
export const desiredReplicas = (set: StatefulSet): number => set.spec.replicas ?? 1;
export const podName = (set: StatefulSet, ordinal: number): string => `${set.metadata.name ?? ''}-${ordinal}`;
export const podRevision = (pod: PodView): string => pod.metadata.labels?.[CONTROLLER_REVISION_HASH_LABEL] ?? '';

/** The labels that make a Pod the set's Pod at `ordinal`. */
export function identityLabels(set: StatefulSet, ordinal: number): Record<string, string> {
  return { [STATEFULSET_POD_NAME_LABEL]: podName(set, ordinal), [POD_INDEX_LABEL]: String(ordinal) };
}

/** identityMatches: the name, the namespace and the identity labels are the ordinal's. */
export function identityMatches(set: StatefulSet, pod: PodView): boolean {
  const { parent, ordinal } = podOrdinal(pod);
  if (ordinal < 0 || parent !== set.metadata.name || pod.metadata.name !== podName(set, ordinal)) return false;
  if ((pod.metadata.namespace ?? '') !== (set.metadata.namespace ?? '')) return false;
  const labels = pod.metadata.labels ?? {};
  return Object.entries(identityLabels(set, ordinal)).every(([k, v]) => labels[k] === v);
}

/** newStatefulSetPod from `template`, labelled with `revision`. */
export function statefulSetPod(
  set: StatefulSet,
  template: PodTemplateSpec,
  revision: string,
  ordinal: number,
): PodToCreate {
  const ref = newControllerRef('apps/v1', 'StatefulSet', set);
  const pod = podFromTemplate(template, set.metadata.name ?? '', set.metadata.namespace ?? '', ref);
  const name = podName(set, ordinal);
  pod.metadata.name = name;
  pod.metadata.labels = {
    ...(pod.metadata.labels ?? {}),
    ...identityLabels(set, ordinal),
    [CONTROLLER_REVISION_HASH_LABEL]: revision,
  };
  pod.spec['hostname'] = name;
  if (set.spec.serviceName) pod.spec['subdomain'] = set.spec.serviceName;
  return pod;
}

export interface Revisions {
  /** The revision the set last completed, and its template. */
  current: { name: string; template: PodTemplateSpec };
  /** The revision of the set's spec now (its template is the set's own). */
  update: string;
}

/**
 * newVersionedStatefulSetPod: below the partition (or, without a rollingUpdate block, below
 * status.currentReplicas) a Pod comes back at the current revision, elsewhere at the update revision.
 */
export function versionedPod(set: StatefulSet, revisions: Revisions, ordinal: number): PodToCreate {
  const strategy = set.spec.updateStrategy;
  // An absent strategy is the apiserver's default: RollingUpdate, partition 0.
  const rollingUpdate = (strategy?.type ?? 'RollingUpdate') === 'RollingUpdate';
  const block = strategy === undefined ? { partition: 0 } : strategy.rollingUpdate;
  const start = startOrdinal(set);
  // Go's `a && b || c`: the partition counts whatever the strategy's type.
  const current =
    (rollingUpdate && !block && ordinal < start + (set.status?.currentReplicas ?? 0)) ||
    (!!block && ordinal < start + (block.partition ?? 0));
  return current
    ? statefulSetPod(set, revisions.current.template, revisions.current.name, ordinal)
    : statefulSetPod(set, set.spec.template, revisions.update, ordinal);
}

/** The longest prefix of a ControllerRevision's name (ControllerRevisionName). */
const MAX_REVISION_PREFIX = 223;

/**
 * The hash of the set's template now. kube hashes a StatefulSet's collision count always, 0 while the status has
 * none (getStatefulSetRevisions), so the first status write does not change the revision.
 */
export const revisionHash = (set: StatefulSet): string =>
  computeHash(set.spec.template, set.status?.collisionCount ?? 0);

/** The name of the ControllerRevision of the set's template now: `<set>-<hash>`, the Pods' controller-revision-hash. */
export function revisionName(set: StatefulSet): string {
  return `${(set.metadata.name ?? '').slice(0, MAX_REVISION_PREFIX)}-${revisionHash(set)}`;
}
