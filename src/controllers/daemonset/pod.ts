// The Pod a DaemonSet creates for a node (k8s:pkg/controller/daemon/daemon_controller.go syncNodes;
// util/daemonset_util.go CreatePodTemplate): the template with the daemon tolerations, the labels
// pod-template-generation (when the DaemonSet has one) and controller-revision-hash, and a required node
// affinity that binds it to its node through the default scheduler (workloads.md §7.3).

import {
  CONTROLLER_REVISION_HASH_LABEL,
  POD_TEMPLATE_GENERATION_LABEL,
  type DaemonSet,
  type PodTemplateSpec,
} from '../../api/apps.js';
import { newControllerRef } from '../workload/controllerref.js';
import { copyJson, podFromTemplate, type PodToCreate } from '../workload/podtemplate.js';
import { computeHash } from '../workload/templatehash.js';
import { templateGeneration } from './decide.js';
import { nodeNameAffinity, templateSpec, withDaemonTolerations } from './placement.js';

/** The controller-revision-hash of the DaemonSet's template now (its ControllerRevision's label, snapshot). */
export function revisionHash(ds: DaemonSet): string {
  return computeHash(ds.spec.template, ds.status?.collisionCount);
}

/** CreatePodTemplate: what every daemon Pod of the revision `hash` shares. */
export function daemonPodTemplate(ds: DaemonSet, hash: string): PodTemplateSpec {
  const template = copyJson(ds.spec.template);
  const spec = template.spec ?? {};
  spec['tolerations'] = withDaemonTolerations(templateSpec(template).tolerations, spec['hostNetwork'] === true);
  template.spec = spec;
  const labels = { ...(template.metadata?.labels ?? {}) };
  const generation = templateGeneration(ds);
  if (generation !== undefined) labels[POD_TEMPLATE_GENERATION_LABEL] = String(generation);
  if (hash !== '') labels[CONTROLLER_REVISION_HASH_LABEL] = hash;
  template.metadata = { ...(template.metadata ?? {}), labels };
  return template;
}

/** The Pod to create on `node`. */
export function daemonPodFor(ds: DaemonSet, hash: string, node: string): PodToCreate {
  const template = daemonPodTemplate(ds, hash);
  const spec = template.spec ?? {};
  spec['affinity'] = nodeNameAffinity(templateSpec(template).affinity, node);
  template.spec = spec;
  const ref = newControllerRef('apps/v1', 'DaemonSet', ds);
  return podFromTemplate(template, ds.metadata.name ?? '', ds.metadata.namespace ?? '', ref);
}
