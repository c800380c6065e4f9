// A StatefulSet's revisions (k8s:pkg/controller/statefulset/stateful_set_control.go getStatefulSetRevisions,
// stateful_set_utils.go newRevision, getPatch, ApplyRevision; controller/history NewControllerRevision): the
// ControllerRevision of the template now — `<set>-<hash>`, created when absent with the next revision number — and the
// current one, the revision the status last completed, whose template the Pods below the partition come back at;
// then the oldest of the others beyond spec.revisionHistoryLimit (truncateHistory). Pure: the host lists the set's
// ControllerRevisions, creates the one decided and deletes the truncated.

import type { PodTemplateSpec, StatefulSet } from '../../api/apps.js';
import type { PodView } from '../../api/pods.js';
import type { ObjectMeta } from '../../api/types.js';
import { newControllerRef } from '../workload/controllerref.js';
import { copyJson } from '../workload/podtemplate.js';
import { podRevision, revisionHash, revisionName, type Revisions } from './identity.js';

/** ControllerRevisionHashLabel: on a ControllerRevision, its hash. */
export const REVISION_HASH_LABEL = 'controller.kubernetes.io/hash';

export interface ControllerRevision {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  data?: unknown;
  revision: number;
}

interface RevisionData {
  spec?: { template?: PodTemplateSpec & { $patch?: string } };
}

/** getPatch: the template, to replace the set's own when the revision is applied. */
export function revisionData(set: StatefulSet): RevisionData {
  return { spec: { template: { ...copyJson(set.spec.template), $patch: 'replace' } } };
}

/** ApplyRevision's template: the revision's, or, if it holds none, the set's own. */
export function revisionTemplate(set: StatefulSet, rev: ControllerRevision): PodTemplateSpec {
  const t = (rev.data as RevisionData | undefined)?.spec?.template;
  if (t === undefined || t === null || typeof t !== 'object') return set.spec.template;
  const { $patch: _replace, ...template } = t;
  return template;
}

/** newRevision: the ControllerRevision of the set's template now, numbered `revision`. */
export function newRevision(set: StatefulSet, revision: number): ControllerRevision {
  const labels = { ...(set.spec.template.metadata?.labels ?? {}) };
  labels[REVISION_HASH_LABEL] = revisionHash(set);
  return {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: {
      name: revisionName(set),
      namespace: set.metadata.namespace ?? '',
      labels,
      ownerReferences: [newControllerRef('apps/v1', 'StatefulSet', set)],
    },
    data: revisionData(set),
    revision,
  };
}

export interface RevisionsDecision {
  revisions: Revisions;
  /** The update revision, when the set has none yet: to create before the Pods. */
  create?: ControllerRevision;
}

/** getStatefulSetRevisions over the set's own ControllerRevisions. */
export function resolveRevisions(set: StatefulSet, owned: readonly ControllerRevision[]): RevisionsDecision {
  const updateName = revisionName(set);
  const existing = owned.find((r) => r.metadata.name === updateName);
  const next = owned.reduce((max, r) => Math.max(max, r.revision), 0) + 1;
  const create = existing ? undefined : newRevision(set, next);
  const update = existing ?? create!;
  const currentName = set.status?.currentRevision;
  const current = (currentName && owned.find((r) => r.metadata.name === currentName)) || update;
  return {
    revisions: {
      current: { name: current.metadata.name ?? '', template: revisionTemplate(set, current) },
      update: updateName,
    },
    ...(create ? { create } : {}),
  };
}

/** The apiserver's default spec.revisionHistoryLimit. */
export const DEFAULT_REVISION_HISTORY_LIMIT = 10;

/** SortControllerRevisions: by revision number, then name. */
const byRevision = (a: ControllerRevision, b: ControllerRevision): number =>
  a.revision - b.revision || ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1);

/**
 * truncateHistory: the oldest revisions beyond spec.revisionHistoryLimit to delete, never the current or the update
 * revision nor one a Pod of the set still carries.
 */
export function revisionsToTruncate(
  set: StatefulSet,
  owned: readonly ControllerRevision[],
  pods: readonly PodView[],
  revisions: Revisions,
): ControllerRevision[] {
  const live = new Set([revisions.current.name, revisions.update, ...pods.map(podRevision)]);
  const history = owned.filter((r) => !live.has(r.metadata.name ?? '')).sort(byRevision);
  const limit = set.spec.revisionHistoryLimit ?? DEFAULT_REVISION_HISTORY_LIMIT;
  return history.slice(0, Math.max(0, history.length - limit));
}
