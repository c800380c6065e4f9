// Readings of a Deployment and its ReplicaSets that its controller's decisions share
// (k8s:pkg/controller/deployment/util/deployment_util.go, pkg/controller/controller_utils.go): defaults, the
// surge and unavailability fenceposts, orderings, the new and old ReplicaSets, revisions and annotations.

import {
  DESIRED_REPLICAS_ANNOTATION,
  MAX_REPLICAS_ANNOTATION,
  POD_TEMPLATE_HASH_LABEL,
  REVISION_ANNOTATION,
  REVISION_HISTORY_ANNOTATION,
  type Deployment,
  type PodTemplateSpec,
  type ReplicaSet,
} from '../../api/apps.js';
import { timeMs } from '../../api/pods.js';
import { deepEqual } from '../../api/equal.js';
import { scaledValue } from '../../api/intstr.js';

/** math.MaxInt32: a progressDeadlineSeconds of this value means "no deadline". */
const NO_DEADLINE = 2147483647;
/** The longest revision-history annotation the controller writes (maxRevHistoryLengthInChars). */
const MAX_REVISION_HISTORY_CHARS = 2000;

/** Annotations of a Deployment never copied onto its ReplicaSets. */
const NOT_COPIED = new Set([
  'kubectl.kubernetes.io/last-applied-configuration',
  REVISION_ANNOTATION,
  REVISION_HISTORY_ANNOTATION,
  DESIRED_REPLICAS_ANNOTATION,
  MAX_REPLICAS_ANNOTATION,
  'deprecated.deployment.rollback.to',
]);

export const desired = (d: Deployment): number => d.spec.replicas ?? 1;
export const replicasOf = (rs: ReplicaSet): number => rs.spec.replicas ?? 1;
export const isRollingUpdate = (d: Deployment): boolean =>
  (d.spec.strategy?.type ?? 'RollingUpdate') === 'RollingUpdate';
export const progressDeadline = (d: Deployment): number => d.spec.progressDeadlineSeconds ?? 600;
export const hasProgressDeadline = (d: Deployment): boolean => progressDeadline(d) !== NO_DEADLINE;
export const revisionHistoryLimit = (d: Deployment): number => d.spec.revisionHistoryLimit ?? 10;

/** ResolveFenceposts: maxSurge rounds up, maxUnavailable down; both 0 makes maxUnavailable 1. */
export function fenceposts(d: Deployment): { maxSurge: number; maxUnavailable: number } {
  const ru = d.spec.strategy?.rollingUpdate ?? {};
  const n = desired(d);
  const maxSurge = scaledValue(ru.maxSurge ?? '25%', n, true);
  let maxUnavailable = scaledValue(ru.maxUnavailable ?? '25%', n, false);
  if (maxSurge === 0 && maxUnavailable === 0) maxUnavailable = 1;
  return { maxSurge, maxUnavailable };
}

export const maxSurge = (d: Deployment): number => (isRollingUpdate(d) ? fenceposts(d).maxSurge : 0);

export function maxUnavailable(d: Deployment): number {
  if (!isRollingUpdate(d) || desired(d) === 0) return 0;
  return Math.min(fenceposts(d).maxUnavailable, desired(d));
}

// ---- orderings --------------------------------------------------------------------------------

const name = (rs: ReplicaSet): string => rs.metadata.name ?? '';
const created = (rs: ReplicaSet): number => timeMs(rs.metadata.creationTimestamp) ?? 0;

/** ReplicaSetsByCreationTimestamp: older first, then by name. */
export function byCreation(a: ReplicaSet, b: ReplicaSet): number {
  if (created(a) !== created(b)) return created(a) - created(b);
  return name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : 0;
}

/** ReplicaSetsBySizeNewer: larger first, newer first among equals. */
export const bySizeNewer = (a: ReplicaSet, b: ReplicaSet): number =>
  replicasOf(a) !== replicasOf(b) ? replicasOf(b) - replicasOf(a) : byCreation(b, a);

/** ReplicaSetsBySizeOlder: larger first, older first among equals. */
export const bySizeOlder = (a: ReplicaSet, b: ReplicaSet): number =>
  replicasOf(a) !== replicasOf(b) ? replicasOf(b) - replicasOf(a) : byCreation(a, b);

/** The revision annotation as a number; 0 when absent or unreadable. */
export function revision(o: { metadata: { annotations?: Record<string, string> } }): number {
  const v = o.metadata.annotations?.[REVISION_ANNOTATION];
  return v !== undefined && /^\d+$/.test(v) ? Number(v) : 0;
}

/** ReplicaSetsByRevision: lower revision first, then by creation. */
export const byRevision = (a: ReplicaSet, b: ReplicaSet): number =>
  revision(a) !== revision(b) ? revision(a) - revision(b) : byCreation(a, b);

// ---- new and old ------------------------------------------------------------------------------

function withoutHash(t: PodTemplateSpec | undefined): unknown {
  const copy = JSON.parse(JSON.stringify(t ?? {})) as PodTemplateSpec;
  const labels = copy.metadata?.labels;
  if (labels) {
    delete labels[POD_TEMPLATE_HASH_LABEL];
    if (Object.keys(labels).length === 0) delete copy.metadata!.labels;
  }
  return copy;
}

/** EqualIgnoreHash: the templates agree but for the pod-template-hash label. */
export const equalIgnoreHash = (a: PodTemplateSpec | undefined, b: PodTemplateSpec | undefined): boolean =>
  deepEqual(withoutHash(a), withoutHash(b));

/** FindNewReplicaSet: the oldest ReplicaSet whose template is the Deployment's. */
export function findNew(d: Deployment, rss: readonly ReplicaSet[]): ReplicaSet | undefined {
  return [...rss].sort(byCreation).find((rs) => equalIgnoreHash(rs.spec.template, d.spec.template));
}

export const isActive = (rs: ReplicaSet): boolean => replicasOf(rs) > 0;
export const sumReplicas = (rss: readonly ReplicaSet[]): number => rss.reduce((n, rs) => n + replicasOf(rs), 0);
export const sumStatus = (rss: readonly ReplicaSet[], f: 'replicas' | 'readyReplicas' | 'availableReplicas'): number =>
  rss.reduce((n, rs) => n + (rs.status?.[f] ?? 0), 0);

// ---- annotations ------------------------------------------------------------------------------

function annotations(rs: ReplicaSet): Record<string, string> {
  return (rs.metadata.annotations ??= {});
}

/** SetReplicasAnnotations: desired-replicas and max-replicas; whether anything changed. */
export function setReplicasAnnotations(rs: ReplicaSet, want: number, max: number): boolean {
  const a = annotations(rs);
  let changed = false;
  for (const [k, v] of [
    [DESIRED_REPLICAS_ANNOTATION, String(want)],
    [MAX_REPLICAS_ANNOTATION, String(max)],
  ] as const) {
    if (a[k] !== v) {
      a[k] = v;
      changed = true;
    }
  }
  return changed;
}

export function replicasAnnotationsNeedUpdate(rs: ReplicaSet, want: number, max: number): boolean {
  const a = rs.metadata.annotations ?? {};
  return a[DESIRED_REPLICAS_ANNOTATION] !== String(want) || a[MAX_REPLICAS_ANNOTATION] !== String(max);
}

function appendHistory(a: Record<string, string>, oldRevision: string): void {
  const history = a[REVISION_HISTORY_ANNOTATION] ?? '';
  if (history === '') {
    a[REVISION_HISTORY_ANNOTATION] = oldRevision;
    return;
  }
  let parts = history.split(',');
  let total = history.length + oldRevision.length + 1;
  let start = 0;
  while (total > MAX_REVISION_HISTORY_CHARS && start < parts.length) total -= parts[start++]!.length + 1;
  if (total > MAX_REVISION_HISTORY_CHARS) return;
  parts = [...parts.slice(start), oldRevision];
  a[REVISION_HISTORY_ANNOTATION] = parts.join(',');
}

/**
 * SetNewReplicaSetAnnotations: the Deployment's own annotations (but the controller's), the revision when it
 * grows (keeping the one it replaces in revision-history: a rollback), and for a ReplicaSet about to be created
 * the replicas annotations. Whether anything changed.
 */
export function setNewReplicaSetAnnotations(
  d: Deployment,
  rs: ReplicaSet,
  newRevision: number,
  exists: boolean,
): boolean {
  const a = annotations(rs);
  let changed = false;
  for (const [k, v] of Object.entries(d.metadata.annotations ?? {})) {
    if (NOT_COPIED.has(k) || a[k] === v) continue;
    a[k] = v;
    changed = true;
  }
  const old = a[REVISION_ANNOTATION];
  // An unreadable revision is left alone, and kube then reports no change at all.
  if (old !== undefined && old !== '' && !/^\d+$/.test(old)) return false;
  const oldRevision = old === undefined || old === '' ? 0 : Number(old);
  if (oldRevision < newRevision) {
    a[REVISION_ANNOTATION] = String(newRevision);
    changed = true;
    if (old !== undefined) appendHistory(a, old);
  }
  if (!exists && setReplicasAnnotations(rs, desired(d), desired(d) + maxSurge(d))) changed = true;
  return changed;
}

/** IsSaturated: the new ReplicaSet is at full size, says so, and has all its Pods available. */
export function isSaturated(d: Deployment, rs: ReplicaSet | undefined): boolean {
  if (!rs) return false;
  const want = rs.metadata.annotations?.[DESIRED_REPLICAS_ANNOTATION];
  if (want === undefined || !/^-?\d+$/.test(want)) return false;
  const n = desired(d);
  return replicasOf(rs) === n && Number(want) === n && (rs.status?.availableReplicas ?? 0) === n;
}
