// The apps/v1 kinds as served: Deployments, ReplicaSets, DaemonSets and StatefulSets (namespaced, in category `all`,
// with status, generation, kube's defaults and validation, the printers' columns; the replicated three with the
// `scale` subresource) and ControllerRevisions. A new object starts with the status kube's PrepareForCreate gives it.

import type { KubeObject } from '../../api/types.js';
import type { ResourceDef, TableColumn, Verb } from '../resourcedef.js';
import type { FieldError } from '../../api/field.js';
import {
  advanceTemplateGeneration,
  defaultDaemonSet,
  defaultDeployment,
  defaultReplicaSet,
  defaultStatefulSet,
  initialStatus,
  startTemplateGeneration,
} from './defaults.js';
import {
  controllerRevisionColumns,
  controllerRevisionRow,
  daemonSetColumns,
  daemonSetRow,
  deploymentColumns,
  deploymentRow,
  replicaSetColumns,
  replicaSetRow,
  statefulSetColumns,
  statefulSetRow,
} from './table.js';
import {
  controllerRevisionValidation,
  daemonSetValidation,
  deploymentValidation,
  replicaSetValidation,
  statefulSetValidation,
} from './validation.js';

const VERBS: Verb[] = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

interface Workload {
  plural: string;
  singular: string;
  kind: string;
  shortNames: string[];
  scale: boolean;
  columns: TableColumn[];
  row: (obj: KubeObject, now: number) => unknown[];
  defaults: (obj: KubeObject) => void;
  validation: { create: (obj: KubeObject) => FieldError[]; update: (obj: KubeObject, old: KubeObject) => FieldError[] };
  /** Field selectors beyond metadata.name and metadata.namespace. */
  fields?: ResourceDef['fields'];
  /** What the kind's strategy adds on create and on a write of the main resource (a DaemonSet's generation). */
  onCreate?: (obj: KubeObject) => void;
  onUpdate?: (obj: KubeObject, old: KubeObject) => void;
}

function workload(w: Workload): ResourceDef {
  return {
    group: 'apps',
    version: 'v1',
    plural: w.plural,
    singular: w.singular,
    kind: w.kind,
    namespaced: true,
    shortNames: w.shortNames,
    categories: ['all'],
    verbs: VERBS,
    statusSubresource: true,
    proxySubresource: false,
    scaleSubresource: w.scale,
    structFields: ['spec', 'status'],
    generation: true,
    fields: w.fields ?? {},
    columns: w.columns,
    row: w.row,
    prepareForCreate: (obj) => {
      w.defaults(obj);
      obj['status'] = initialStatus[w.kind]!();
      w.onCreate?.(obj);
    },
    prepareForUpdate: (obj, old, subresource) => {
      if (subresource === 'status') return;
      w.defaults(obj);
      w.onUpdate?.(obj, old);
    },
    validation: w.validation,
  };
}

export const deployments: ResourceDef = {
  ...workload({
    plural: 'deployments',
    singular: 'deployment',
    kind: 'Deployment',
    shortNames: ['deploy'],
    scale: true,
    columns: deploymentColumns,
    row: deploymentRow,
    defaults: defaultDeployment,
    validation: deploymentValidation,
  }),
  // The Deployment strategy's PrepareForUpdate: annotations are copied to its ReplicaSets, so they move generation.
  annotationsMoveGeneration: true,
};

export const replicaSets = workload({
  plural: 'replicasets',
  singular: 'replicaset',
  kind: 'ReplicaSet',
  shortNames: ['rs'],
  scale: true,
  columns: replicaSetColumns,
  row: replicaSetRow,
  defaults: defaultReplicaSet,
  validation: replicaSetValidation,
  // ReplicaSetToSelectableFields.
  fields: { 'status.replicas': (o) => String((o['status'] as { replicas?: number } | undefined)?.replicas ?? 0) },
});

export const daemonSets = workload({
  plural: 'daemonsets',
  singular: 'daemonset',
  kind: 'DaemonSet',
  shortNames: ['ds'],
  scale: false,
  columns: daemonSetColumns,
  row: daemonSetRow,
  defaults: defaultDaemonSet,
  validation: daemonSetValidation,
  onCreate: startTemplateGeneration,
  onUpdate: advanceTemplateGeneration,
});

export const statefulSets = workload({
  plural: 'statefulsets',
  singular: 'statefulset',
  kind: 'StatefulSet',
  shortNames: ['sts'],
  scale: true,
  columns: statefulSetColumns,
  row: statefulSetRow,
  defaults: defaultStatefulSet,
  validation: statefulSetValidation,
});

export const controllerRevisions: ResourceDef = {
  group: 'apps',
  version: 'v1',
  plural: 'controllerrevisions',
  singular: 'controllerrevision',
  kind: 'ControllerRevision',
  namespaced: true,
  shortNames: [],
  verbs: VERBS,
  statusSubresource: false,
  proxySubresource: false,
  fields: {},
  columns: controllerRevisionColumns,
  row: controllerRevisionRow,
  // Go writes revision (no omitempty): an object sent without it is stored and served with 0.
  prepareForCreate: (obj) => {
    obj['revision'] ??= 0;
  },
  prepareForUpdate: (obj) => {
    obj['revision'] ??= 0;
  },
  validation: controllerRevisionValidation,
};

/** The apps/v1 resources, in the order kube-apiserver's discovery lists them. */
export const appsResources: ResourceDef[] = [controllerRevisions, daemonSets, deployments, replicaSets, statefulSets];
