// The disruption controller's finders (pkg/controller/disruption/disruption.go finders()): what controls a selected
// Pod, and its scale, tried in kube's order — a ReplicationController; a Deployment through the Pod's ReplicaSet; a
// ReplicaSet no Deployment controls; a StatefulSet; anything else through its scale subresource, found by
// discovery. Each finder checks the UID the Pod's controllerRef names; a miss is no answer (the next finder is
// tried), so a controllerRef none resolves is compute.ts's "found no controllers". The I/O is one getter the
// controller gives (a GET that answers undefined on 404), so the order and the checks are tested without a server.

import type { OwnerReference } from '../../api/types.js';
import type { ControllerLookup } from './compute.js';
import { errors } from './messages.js';

/** A GET of `path`: the object, or undefined when the server says 404. */
export type Getter = (path: string) => Promise<unknown>;

interface Scalable {
  metadata?: { uid?: string; ownerReferences?: OwnerReference[] };
  spec?: { replicas?: number };
}

interface ApiResourceList {
  resources?: { name: string; kind: string }[];
}

type Finder = (get: Getter, namespace: string, ref: OwnerReference) => Promise<ControllerLookup | undefined>;

const APPS_GROUPS = ['apps', 'extensions'];

/** The group and version of an apiVersion: `v1` is the core group's. */
export function groupVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  return slash < 0
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

const groupOf = (ref: OwnerReference): string => groupVersion(ref.apiVersion).group;
const controllerRefOf = (o: Scalable): OwnerReference | undefined =>
  o.metadata?.ownerReferences?.find((r) => r.controller === true);
const answer = (o: Scalable): ControllerLookup => ({ uid: o.metadata?.uid ?? '', scale: o.spec?.replicas ?? 0 });

async function owned(get: Getter, path: string, uid: string): Promise<Scalable | undefined> {
  const o = (await get(path)) as Scalable | undefined;
  return o !== undefined && o.metadata?.uid === uid ? o : undefined;
}

const replicationController: Finder = async (get, ns, ref) => {
  if (ref.kind !== 'ReplicationController' || groupOf(ref) !== '') return undefined;
  const rc = await owned(get, `/api/v1/namespaces/${ns}/replicationcontrollers/${ref.name}`, ref.uid);
  return rc && answer(rc);
};

const replicaSetOf = (get: Getter, ns: string, ref: OwnerReference): Promise<Scalable | undefined> =>
  ref.kind === 'ReplicaSet' && APPS_GROUPS.includes(groupOf(ref))
    ? owned(get, `/apis/apps/v1/namespaces/${ns}/replicasets/${ref.name}`, ref.uid)
    : Promise.resolve(undefined);

const isDeploymentRef = (r: OwnerReference | undefined): r is OwnerReference =>
  r !== undefined && r.kind === 'Deployment' && APPS_GROUPS.includes(groupOf(r));

const deployment: Finder = async (get, ns, ref) => {
  const rs = await replicaSetOf(get, ns, ref);
  const owner = rs && controllerRefOf(rs);
  if (!isDeploymentRef(owner)) return undefined;
  const d = await owned(get, `/apis/apps/v1/namespaces/${ns}/deployments/${owner.name}`, owner.uid);
  return d && answer(d);
};

const replicaSet: Finder = async (get, ns, ref) => {
  const rs = await replicaSetOf(get, ns, ref);
  return rs && !isDeploymentRef(controllerRefOf(rs)) ? answer(rs) : undefined;
};

const statefulSet: Finder = async (get, ns, ref) => {
  if (ref.kind !== 'StatefulSet' || groupOf(ref) !== 'apps') return undefined;
  const sts = await owned(get, `/apis/apps/v1/namespaces/${ns}/statefulsets/${ref.name}`, ref.uid);
  return sts && answer(sts);
};

/** The RESTMapping's resource for the controllerRef's kind, from the group version's discovery document. */
async function resourceOf(get: Getter, ref: OwnerReference): Promise<{ name: string; scalable: boolean }> {
  const { group, version } = groupVersion(ref.apiVersion);
  const list = (await get(group === '' ? `/api/${version}` : `/apis/${group}/${version}`)) as ApiResourceList;
  const resources = list?.resources ?? [];
  const found = resources.find((r) => r.kind === ref.kind && !r.name.includes('/'));
  if (!found) throw new FinderError(errors.noKindMatch(ref.kind, ref.apiVersion));
  return { name: found.name, scalable: resources.some((r) => r.name === `${found.name}/scale`) };
}

class FinderError extends Error {}

const scaleSubresource: Finder = async (get, ns, ref) => {
  const { group, version } = groupVersion(ref.apiVersion);
  const resource = await resourceOf(get, ref);
  const base = group === '' ? `/api/${version}` : `/apis/${group}/${version}`;
  const scale = (await get(`${base}/namespaces/${ns}/${resource.name}/${ref.name}/scale`)) as Scalable | undefined;
  if (scale === undefined) {
    if (!resource.scalable)
      throw new FinderError(errors.noScale(group === '' ? resource.name : `${resource.name}.${group}`));
    return undefined;
  }
  return scale.metadata?.uid === ref.uid ? answer(scale) : undefined;
};

const FINDERS: readonly Finder[] = [replicationController, deployment, replicaSet, statefulSet, scaleSubresource];

/** The controller of a Pod's controllerRef and its scale; undefined when no finder resolves it. */
export async function findController(
  get: Getter,
  namespace: string,
  ref: OwnerReference,
): Promise<ControllerLookup | undefined> {
  try {
    for (const finder of FINDERS) {
      const found = await finder(get, namespace, ref);
      if (found) return found;
    }
    return undefined;
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err) };
  }
}
