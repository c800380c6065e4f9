// What kube-apiserver fills into a Pod before validating it: the v1 defaulters (SetDefaults_Pod, _PodSpec,
// _Container; a Pod template's spec gets _PodSpec and _Container only), the Priority admission's priority for a Pod
// without a PriorityClass, quantities in their canonical form, and on create the status the registry starts every
// Pod with (phase Pending and its QoS class). Pure: each function changes the object it is given; a quantity that
// does not parse is a 400, as Go's decoding refuses it.

import { errors } from '../../api/errors.js';
import { Quantity } from '../../kubeletconfig/values.js';
import { podText } from './messages.js';
import type { Container, PodObject, PodSpec, ResourceRequirements } from './types.js';

const DEFAULT_GRACE_SECONDS = 30;

/** A quantity as JSON carries it (a string or a number); one that does not parse is Go's decoding error, a 400. */
export function quantity(raw: unknown): Quantity {
  try {
    return Quantity.parse(typeof raw === 'number' ? String(raw) : typeof raw === 'string' ? raw : '');
  } catch (err) {
    throw errors.badRequest(podText.undecodable((err as Error).message));
  }
}

/** Each quantity of a resource list in Quantity.String()'s form ("0.5" is "500m"). */
function canonicalList(list: Record<string, unknown> | null | undefined): void {
  if (!list) return;
  for (const [name, raw] of Object.entries(list)) list[name] = quantity(raw).toString();
}

/** SetDefaults_Pod: a container's requests default to its limits. */
function requestsFromLimits(r: ResourceRequirements): void {
  if (!r.limits) return;
  const requests = (r.requests ??= {});
  for (const [name, limit] of Object.entries(r.limits)) if (!(name in requests)) requests[name] = limit;
}

/** The image's tag, or '' (a digest reference counts as tagged). */
function imageTag(image: string): string {
  if (image.includes('@')) return '@';
  const slash = image.lastIndexOf('/');
  const colon = image.lastIndexOf(':');
  return colon > slash ? image.slice(colon + 1) : '';
}

function defaultContainer(c: Container): void {
  c.terminationMessagePath ??= '/dev/termination-log';
  c.terminationMessagePolicy ??= 'File';
  if (c.imagePullPolicy === undefined && typeof c.image === 'string') {
    const tag = imageTag(c.image);
    c.imagePullPolicy = tag === '' || tag === 'latest' ? 'Always' : 'IfNotPresent';
  }
  for (const p of c.ports ?? []) if (p && p.protocol === undefined) p.protocol = 'TCP';
  if (c.resources) {
    canonicalList(c.resources.limits);
    canonicalList(c.resources.requests);
  } else c.resources = {};
}

const containersOf = (spec: PodSpec): Container[] =>
  [...(spec.initContainers ?? []), ...(spec.containers ?? [])].filter((c) => c);

/**
 * SetDefaults_PodSpec and the container defaulters: what every Pod spec is given, a Pod's own and a Pod template's
 * (a Deployment's, a ReplicaSet's). What SetDefaults_Pod and the Priority admission add is for Pods only.
 */
export function defaultPodSpec(spec: PodSpec): void {
  spec.dnsPolicy ??= 'ClusterFirst';
  spec.restartPolicy ??= 'Always';
  spec.terminationGracePeriodSeconds ??= DEFAULT_GRACE_SECONDS;
  // A negative grace period is treated as 1 (kube ≥ 1.27).
  if (spec.terminationGracePeriodSeconds < 0) spec.terminationGracePeriodSeconds = 1;
  spec.securityContext ??= {};
  spec.schedulerName ??= 'default-scheduler';
  for (const c of containersOf(spec)) defaultContainer(c);
}

/** SetDefaults_Pod (service links, requests from limits) and the Priority admission's priority. */
function defaultPodOnly(spec: PodSpec): void {
  spec.enableServiceLinks ??= true;
  for (const c of containersOf(spec)) if (c.resources) requestsFromLimits(c.resources);
  if (!spec.priorityClassName && (spec.priority === undefined || spec.priority === null)) spec.priority = 0;
  if (spec.priority !== undefined) spec.preemptionPolicy ??= 'PreemptLowerPriority';
}

/** kube's GetPodQOS over requests and limits (after defaulting). */
export function qosClass(spec: PodSpec): string {
  const containers = containersOf(spec);
  const set = (l: Record<string, unknown> | null | undefined, r: string) =>
    l?.[r] !== undefined && !quantity(l[r]).isZero();
  const any = containers.some((c) =>
    ['cpu', 'memory'].some((r) => set(c.resources?.requests, r) || set(c.resources?.limits, r)),
  );
  if (!any) return 'BestEffort';
  const guaranteed = containers.every((c) =>
    ['cpu', 'memory'].every(
      (r) =>
        set(c.resources?.limits, r) &&
        quantity(c.resources?.limits?.[r]).equals(quantity(c.resources?.requests?.[r] ?? c.resources?.limits?.[r])),
    ),
  );
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

/** The defaults of every write of a Pod's spec (create and update). */
export function defaultPod(pod: PodObject): void {
  if (!pod.spec || typeof pod.spec !== 'object') pod.spec = {};
  defaultPodSpec(pod.spec);
  defaultPodOnly(pod.spec);
}

/** A new Pod: defaulted, and its status what the registry starts every Pod with. */
export function preparePodCreate(pod: PodObject): void {
  defaultPod(pod);
  pod.status = { phase: 'Pending', qosClass: qosClass(pod.spec ?? {}) };
}
