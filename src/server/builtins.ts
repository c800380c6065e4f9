// The built-in resources of the core and coordination groups, each described once (src/server/resourcedef.ts says
// what a description holds): identity, verbs, field selectors, Table columns and the kind's own create, update and
// delete rules. The catalogue of what is served is src/server/registry.ts.

import type { KubeObject } from '../api/types.js';
import { age } from '../api/humanize.js';
import { CONFIG_NAMESPACE } from '../api/dkc/identity.js';
import type { ResourceDef } from './resourcedef.js';
import { ageCol, col, created, nameCol } from './columns.js';
import {
  namespaceDeletion,
  namespaceMayGo,
  prepareNamespaceCreate,
  prepareNamespaceUpdate,
} from './namespacelifecycle.js';
import { anyText } from '../util/text.js';
import { defaultPod, preparePodCreate } from './pods/defaults.js';
import { validatePod, validatePodUpdate } from './pods/validation.js';
import { podDeletionStrategy } from './pods/deletion.js';
import { podColumns, podRow } from './pods/table.js';
import { podBinding } from './pods/binding.js';
import { podEviction } from './pods/evict.js';

/** Nested read by dotted path; undefined when any step is missing. */
export function dig(obj: unknown, path: string): unknown {
  let cur: unknown = obj;
  for (const part of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

function str(v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  return anyText(v);
}

interface NodeCondition {
  type?: string;
  status?: string;
}
interface NodeAddress {
  type?: string;
  address?: string;
}

function nodeStatus(o: KubeObject): string {
  const conditions = (dig(o, 'status.conditions') as NodeCondition[] | undefined) ?? [];
  const ready = Array.isArray(conditions) ? conditions.find((c) => c && c.type === 'Ready') : undefined;
  const parts = [
    !ready ? 'Unknown' : ready.status === 'True' ? 'Ready' : ready.status === 'False' ? 'NotReady' : 'Unknown',
  ];
  if (dig(o, 'spec.unschedulable') === true) parts.push('SchedulingDisabled');
  return parts.join(',');
}

function nodeRoles(o: KubeObject): string {
  const roles = new Set<string>();
  for (const [k, v] of Object.entries(o.metadata?.labels ?? {})) {
    if (k.startsWith('node-role.kubernetes.io/')) {
      const role = k.slice('node-role.kubernetes.io/'.length);
      if (role) roles.add(role);
    } else if (k === 'kubernetes.io/role' && v) roles.add(v);
  }
  return roles.size ? [...roles].sort().join(',') : '<none>';
}

function nodeAddress(o: KubeObject, type: string): string {
  const addrs = (dig(o, 'status.addresses') as NodeAddress[] | undefined) ?? [];
  const found = Array.isArray(addrs) ? addrs.find((a) => a && a.type === type) : undefined;
  return found?.address || '<none>';
}

const orUnknown = (v: unknown) => (typeof v === 'string' && v ? v : '<unknown>');

export const nodes: ResourceDef = {
  group: '',
  version: 'v1',
  plural: 'nodes',
  singular: 'node',
  kind: 'Node',
  namespaced: false,
  shortNames: ['no'],
  verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
  statusSubresource: true,
  proxySubresource: true,
  structFields: ['spec', 'status'],
  fields: { 'spec.unschedulable': (o) => str(dig(o, 'spec.unschedulable') ?? false) },
  columns: [
    nameCol,
    col('Status', 'The status of the node'),
    col('Roles', 'The roles of the node'),
    ageCol,
    col('Version', 'Kubelet Version reported by the node.'),
    col('Internal-IP', 'List of addresses reachable to the node. Queried from cloud provider, if available.', {
      priority: 1,
    }),
    col('External-IP', 'List of addresses reachable to the node. Queried from cloud provider, if available.', {
      priority: 1,
    }),
    col('OS-Image', 'OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).', {
      priority: 1,
    }),
    col('Kernel-Version', "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).", {
      priority: 1,
    }),
    col(
      'Container-Runtime',
      'Container runtime version reported by the node through runtime remote API (e.g. containerd://1.4.2).',
      { priority: 1 },
    ),
  ],
  row: (o, now) => [
    o.metadata.name,
    nodeStatus(o),
    nodeRoles(o),
    created(o, now),
    str(dig(o, 'status.nodeInfo.kubeletVersion')) ?? '',
    nodeAddress(o, 'InternalIP'),
    nodeAddress(o, 'ExternalIP'),
    orUnknown(dig(o, 'status.nodeInfo.osImage')),
    orUnknown(dig(o, 'status.nodeInfo.kernelVersion')),
    orUnknown(dig(o, 'status.nodeInfo.containerRuntimeVersion')),
  ],
};

export const configmaps: ResourceDef = {
  group: '',
  version: 'v1',
  plural: 'configmaps',
  singular: 'configmap',
  kind: 'ConfigMap',
  namespaced: true,
  shortNames: ['cm'],
  verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
  statusSubresource: false,
  proxySubresource: false,
  fields: {},
  columns: [nameCol, col('Data', 'Data contains the configuration data.', { type: 'integer' }), ageCol],
  row: (o, now) => [
    o.metadata.name,
    Object.keys((o['data'] as object | undefined) ?? {}).length +
      Object.keys((o['binaryData'] as object | undefined) ?? {}).length,
    created(o, now),
  ],
};

function eventObject(o: KubeObject): string {
  const kind = str(dig(o, 'involvedObject.kind')) ?? '';
  const name = str(dig(o, 'involvedObject.name')) ?? '';
  return `${kind.toLowerCase()}/${name}`;
}

function eventLastSeen(o: KubeObject, now: number): string {
  const last =
    dig(o, 'lastTimestamp') ?? dig(o, 'eventTime') ?? dig(o, 'series.lastObservedTime') ?? o.metadata.creationTimestamp;
  return age(last, now);
}

export const events: ResourceDef = {
  group: '',
  version: 'v1',
  plural: 'events',
  singular: 'event',
  kind: 'Event',
  namespaced: true,
  shortNames: ['ev'],
  verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
  statusSubresource: false,
  proxySubresource: false,
  fields: {
    'involvedObject.kind': (o) => str(dig(o, 'involvedObject.kind')) ?? '',
    'involvedObject.namespace': (o) => str(dig(o, 'involvedObject.namespace')) ?? '',
    'involvedObject.name': (o) => str(dig(o, 'involvedObject.name')) ?? '',
    'involvedObject.uid': (o) => str(dig(o, 'involvedObject.uid')) ?? '',
    'involvedObject.apiVersion': (o) => str(dig(o, 'involvedObject.apiVersion')) ?? '',
    'involvedObject.resourceVersion': (o) => str(dig(o, 'involvedObject.resourceVersion')) ?? '',
    'involvedObject.fieldPath': (o) => str(dig(o, 'involvedObject.fieldPath')) ?? '',
    reason: (o) => str(o['reason']) ?? '',
    reportingComponent: (o) => str(o['reportingComponent']) ?? '',
    source: (o) => str(dig(o, 'source.component')) ?? '',
    type: (o) => str(o['type']) ?? '',
  },
  columns: [
    col('Last Seen', 'Time of the last occurrence'),
    col('Type', 'Type of this event (Normal, Warning), new types could be added in the future'),
    col(
      'Reason',
      "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.",
    ),
    col('Object', 'The object that this event is about.'),
    col('Message', 'A human-readable description of the status of this operation.'),
  ],
  row: (o, now) => [
    eventLastSeen(o, now),
    str(o['type']) ?? '',
    str(o['reason']) ?? '',
    eventObject(o),
    str(o['message']) ?? '',
  ],
};

export const namespaces: ResourceDef = {
  group: '',
  version: 'v1',
  plural: 'namespaces',
  singular: 'namespace',
  kind: 'Namespace',
  namespaced: false,
  shortNames: ['ns'],
  verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
  statusSubresource: true,
  proxySubresource: false,
  structFields: ['spec', 'status'],
  fields: { 'status.phase': (o) => str(dig(o, 'status.phase')) ?? '' },
  columns: [nameCol, col('Status', 'The status of the namespace'), ageCol],
  row: (o, now) => [o.metadata.name, str(dig(o, 'status.phase')) ?? '', created(o, now)],
  prepareForCreate: prepareNamespaceCreate,
  prepareForUpdate: prepareNamespaceUpdate,
  finalizeSubresource: true,
  deletion: { onDelete: namespaceDeletion, mayGoByUpdate: namespaceMayGo },
  builtin: ['default', 'kube-system', 'kube-public', 'kube-node-lease', CONFIG_NAMESPACE].map((name) => ({
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name, labels: { 'kubernetes.io/metadata.name': name } },
  })),
  undeletable: {
    default: 'this namespace may not be deleted',
    'kube-system': 'this namespace may not be deleted',
    'kube-public': 'this namespace may not be deleted',
  },
};

export const pods: ResourceDef = {
  group: '',
  version: 'v1',
  plural: 'pods',
  singular: 'pod',
  kind: 'Pod',
  namespaced: true,
  shortNames: ['po'],
  categories: ['all'],
  verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
  statusSubresource: true,
  proxySubresource: false,
  structFields: ['spec', 'status'],
  fields: {
    'spec.nodeName': (o) => str(dig(o, 'spec.nodeName')) ?? '',
    'spec.restartPolicy': (o) => str(dig(o, 'spec.restartPolicy')) ?? '',
    'spec.schedulerName': (o) => str(dig(o, 'spec.schedulerName')) ?? '',
    'spec.serviceAccountName': (o) => str(dig(o, 'spec.serviceAccountName')) ?? '',
    'status.phase': (o) => str(dig(o, 'status.phase')) ?? '',
    'status.podIP': (o) => str(dig(o, 'status.podIP')) ?? '',
    'status.nominatedNodeName': (o) => str(dig(o, 'status.nominatedNodeName')) ?? '',
  },
  columns: podColumns,
  row: podRow,
  prepareForCreate: preparePodCreate,
  prepareForUpdate: (obj, _old, subresource) => {
    if (subresource === '') defaultPod(obj);
  },
  validation: { create: validatePod, update: validatePodUpdate },
  deletion: podDeletionStrategy,
  actions: { binding: podBinding, eviction: podEviction },
};

/** The legacy POST .../bindings: a Pod's binding named by the Binding's metadata.name. Nothing is stored. */
export const bindings: ResourceDef = {
  group: '',
  version: 'v1',
  plural: 'bindings',
  singular: 'binding',
  kind: 'Binding',
  namespaced: true,
  shortNames: [],
  verbs: ['create'],
  statusSubresource: false,
  proxySubresource: false,
  fields: {},
  columns: [nameCol, ageCol],
  row: (o, now) => [o.metadata.name, created(o, now)],
  actions: { '': podBinding },
};

export const leases: ResourceDef = {
  group: 'coordination.k8s.io',
  version: 'v1',
  plural: 'leases',
  singular: 'lease',
  kind: 'Lease',
  namespaced: true,
  shortNames: [],
  verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
  statusSubresource: false,
  proxySubresource: false,
  structFields: ['spec'],
  fields: {},
  columns: [nameCol, col('Holder', 'The holder of the lease'), ageCol],
  row: (o, now) => [o.metadata.name, str(dig(o, 'spec.holderIdentity')) ?? '', created(o, now)],
};
