// The Pod a workload controller creates from its template (k8s:pkg/controller/controller_utils.go
// GetPodFromTemplate): the template's labels, annotations and finalizers, its spec as it is, the controller's
// reference, and a generateName of the controller's name and a dash.

import type { PodTemplateSpec } from '../../api/apps.js';
import type { ObjectMeta, OwnerReference } from '../../api/types.js';

/** The Pod to POST; its spec is the template's, untouched. */
export interface PodToCreate {
  apiVersion: 'v1';
  kind: 'Pod';
  metadata: ObjectMeta;
  spec: Record<string, unknown>;
}

/** A DNS subdomain is at most 253 characters; a prefix that would exceed it is the name alone (getPodsPrefix). */
const MAX_NAME = 253;

export function podsPrefix(controllerName: string): string {
  const prefix = `${controllerName}-`;
  return prefix.length > MAX_NAME ? controllerName : prefix;
}

/** A deep copy through JSON: templates are JSON values. */
export function copyJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

export function podFromTemplate(
  template: PodTemplateSpec,
  controllerName: string,
  namespace: string,
  controllerRef: OwnerReference,
): PodToCreate {
  const meta = template.metadata ?? {};
  const metadata: ObjectMeta = { generateName: podsPrefix(controllerName), namespace };
  if (meta.labels) metadata.labels = { ...meta.labels };
  if (meta.annotations) metadata.annotations = { ...meta.annotations };
  if (meta.finalizers) metadata.finalizers = [...meta.finalizers];
  metadata.ownerReferences = [controllerRef];
  return { apiVersion: 'v1', kind: 'Pod', metadata, spec: copyJson(template.spec ?? {}) };
}
