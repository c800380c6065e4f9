// The Table columns and rows of the apps/v1 kinds, as kube-apiserver's printers make them (printDeployment,
// printReplicaSet, printDaemonSet, printStatefulSet, printControllerRevision): counts from spec and status, the
// template's containers and images, selectors in their string form. Pure.

import type { KubeObject } from '../../api/types.js';
import { controllerOf } from '../../api/apps.js';
import { anyText } from '../../util/text.js';
import { ageCol, col, created, nameCol } from '../columns.js';
import type { TableColumn } from '../resourcedef.js';
import { selectorString } from '../scale.js';
import { columnText } from './messages.js';

type Json = Record<string, unknown>;

const specOf = (o: KubeObject): Json => (o['spec'] as Json | undefined) ?? {};
const statusOf = (o: KubeObject): Json => (o['status'] as Json | undefined) ?? {};
const count = (v: unknown): number => (typeof v === 'number' ? v : 0);

/** metav1.FormatLabelSelector. */
function formatSelector(sel: unknown): string {
  const s = selectorString(sel);
  if (s === undefined) return columnText.error;
  return s || columnText.none;
}

/** labels.FormatLabels: sorted `k=v` pairs, `<none>` when there are none. */
function formatLabels(m: unknown): string {
  const entries = Object.entries((m as Record<string, string> | null | undefined) ?? {}).sort(([a], [b]) =>
    a < b ? -1 : a > b ? 1 : 0,
  );
  return entries.length ? entries.map(([k, v]) => `${k}=${v}`).join(',') : columnText.none;
}

/** layoutContainerCells: the template's container names and images, comma-separated. */
function containerCells(o: KubeObject): [string, string] {
  const template = (specOf(o)['template'] as Json | undefined) ?? {};
  const containers = ((template['spec'] as Json | undefined)?.['containers'] as Json[] | undefined) ?? [];
  const list = Array.isArray(containers) ? containers.filter((c) => c) : [];
  return [list.map((c) => anyText(c['name'] ?? '')).join(','), list.map((c) => anyText(c['image'] ?? '')).join(',')];
}

const wideCols = [
  col('Containers', columnText.containers, { priority: 1 }),
  col('Images', columnText.images, { priority: 1 }),
];
const int = { type: 'integer' } as const;

export const deploymentColumns: TableColumn[] = [
  nameCol,
  col('Ready', columnText.ready),
  col('Up-to-date', columnText.deployUpdated),
  col('Available', columnText.deployAvailable),
  ageCol,
  ...wideCols,
  col('Selector', columnText.deploySelector, { priority: 1 }),
];

export function deploymentRow(o: KubeObject, now: number): unknown[] {
  const spec = specOf(o);
  const status = statusOf(o);
  const selector = selectorString(spec['selector']);
  return [
    o.metadata.name,
    `${count(status['readyReplicas'])}/${count(spec['replicas'])}`,
    count(status['updatedReplicas']),
    count(status['availableReplicas']),
    created(o, now),
    ...containerCells(o),
    selector ?? columnText.invalid,
  ];
}

export const replicaSetColumns: TableColumn[] = [
  nameCol,
  col('Desired', columnText.rsDesired, int),
  col('Current', columnText.rsCurrent, int),
  col('Ready', columnText.rsReady, int),
  ageCol,
  ...wideCols,
  col('Selector', columnText.rsSelector, { priority: 1 }),
];

export function replicaSetRow(o: KubeObject, now: number): unknown[] {
  const spec = specOf(o);
  const status = statusOf(o);
  return [
    o.metadata.name,
    count(spec['replicas']),
    count(status['replicas']),
    count(status['readyReplicas']),
    created(o, now),
    ...containerCells(o),
    formatSelector(spec['selector']),
  ];
}

export const daemonSetColumns: TableColumn[] = [
  nameCol,
  col('Desired', columnText.dsDesired, int),
  col('Current', columnText.dsCurrent, int),
  col('Ready', columnText.dsReady, int),
  col('Up-to-date', columnText.dsUpdated, int),
  col('Available', columnText.dsAvailable, int),
  col('Node Selector', columnText.dsNodeSelector),
  ageCol,
  ...wideCols,
  col('Selector', columnText.dsSelector, { priority: 1 }),
];

export function daemonSetRow(o: KubeObject, now: number): unknown[] {
  const spec = specOf(o);
  const status = statusOf(o);
  const podSpec = ((spec['template'] as Json | undefined)?.['spec'] as Json | undefined) ?? {};
  return [
    o.metadata.name,
    count(status['desiredNumberScheduled']),
    count(status['currentNumberScheduled']),
    count(status['numberReady']),
    count(status['updatedNumberScheduled']),
    count(status['numberAvailable']),
    formatLabels(podSpec['nodeSelector']),
    created(o, now),
    ...containerCells(o),
    formatSelector(spec['selector']),
  ];
}

export const statefulSetColumns: TableColumn[] = [nameCol, col('Ready', columnText.ready), ageCol, ...wideCols];

export function statefulSetRow(o: KubeObject, now: number): unknown[] {
  const ready = `${count(statusOf(o)['readyReplicas'])}/${count(specOf(o)['replicas'])}`;
  return [o.metadata.name, ready, created(o, now), ...containerCells(o)];
}

export const controllerRevisionColumns: TableColumn[] = [
  nameCol,
  col('Controller', columnText.revisionController),
  col('Revision', columnText.revision),
  ageCol,
];

/** formatResourceName with its kind: `<kind>.<group>/<name>` in lower case, `<none>` without a controller. */
function controllerName(o: KubeObject): string {
  const ref = controllerOf(o.metadata);
  if (!ref) return columnText.none;
  const slash = ref.apiVersion.indexOf('/');
  const group = slash < 0 ? '' : ref.apiVersion.slice(0, slash);
  const kind = group ? `${ref.kind}.${group}` : ref.kind;
  return kind ? `${kind.toLowerCase()}/${ref.name}` : ref.name;
}

export function controllerRevisionRow(o: KubeObject, now: number): unknown[] {
  return [o.metadata.name, controllerName(o), count(o['revision']), created(o, now)];
}
