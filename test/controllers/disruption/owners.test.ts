// The disruption controller's finders: a Pod's controllerRef resolved in kube's order, the UID checked at each step,
// a Deployment counted through its ReplicaSet, and a kind without a scale named in kube's error.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { findController, groupVersion, type Getter } from '../../../src/controllers/disruption/owners.js';
import type { OwnerReference } from '../../../src/api/types.js';

const APPS = '/apis/apps/v1/namespaces/ns';
const owner = (kind: string, name: string, uid: string, apiVersion = 'apps/v1'): OwnerReference => ({
  apiVersion,
  kind,
  name,
  uid,
  controller: true,
});
const scalable = (uid: string, replicas: number, ownerReferences: OwnerReference[] = []) => ({
  metadata: { uid, ownerReferences },
  spec: { replicas },
});

/** A getter over fixed objects by path; every path asked is recorded. */
function getter(objects: Record<string, unknown>): { get: Getter; asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    get: (path) => {
      asked.push(path);
      return Promise.resolve(objects[path]);
    },
  };
}

const WIDGETS = {
  '/apis/example.com/v1': {
    resources: [
      { name: 'widgets', kind: 'Widget' },
      { name: 'widgets/scale', kind: 'Scale' },
    ],
  },
};
const BATCH = {
  '/apis/batch/v1': {
    resources: [
      { name: 'jobs', kind: 'Job' },
      { name: 'jobs/status', kind: 'Job' },
    ],
  },
};

const cases: { name: string; ref: OwnerReference; objects: Record<string, unknown>; want: unknown }[] = [
  {
    name: 'a ReplicaSet a Deployment controls counts by the Deployment',
    ref: owner('ReplicaSet', 'web-abc', 'rs-1'),
    objects: {
      [`${APPS}/replicasets/web-abc`]: scalable('rs-1', 2, [owner('Deployment', 'web', 'd-1')]),
      [`${APPS}/deployments/web`]: scalable('d-1', 5),
    },
    want: { uid: 'd-1', scale: 5 },
  },
  {
    name: 'a standalone ReplicaSet counts by itself',
    ref: owner('ReplicaSet', 'solo', 'rs-2'),
    objects: { [`${APPS}/replicasets/solo`]: scalable('rs-2', 3) },
    want: { uid: 'rs-2', scale: 3 },
  },
  {
    name: 'a ReplicaSet of another UID is not the Pod’s controller',
    ref: owner('ReplicaSet', 'solo', 'rs-old'),
    objects: { [`${APPS}/replicasets/solo`]: scalable('rs-2', 3), '/apis/apps/v1': { resources: [] } },
    want: { error: 'no matches for kind "ReplicaSet" in version "apps/v1"' },
  },
  {
    name: 'a StatefulSet',
    ref: owner('StatefulSet', 'db', 'ss-1'),
    objects: { [`${APPS}/statefulsets/db`]: scalable('ss-1', 4) },
    want: { uid: 'ss-1', scale: 4 },
  },
  {
    name: 'a ReplicationController',
    ref: owner('ReplicationController', 'rc', 'rc-1', 'v1'),
    objects: { '/api/v1/namespaces/ns/replicationcontrollers/rc': scalable('rc-1', 1) },
    want: { uid: 'rc-1', scale: 1 },
  },
  {
    name: 'any other kind through its scale subresource',
    ref: owner('Widget', 'w', 'w-1', 'example.com/v1'),
    objects: {
      ...WIDGETS,
      '/apis/example.com/v1/namespaces/ns/widgets/w/scale': scalable('w-1', 7),
    },
    want: { uid: 'w-1', scale: 7 },
  },
  {
    name: 'a scale subresource that is there but not found: no controller',
    ref: owner('Widget', 'gone', 'w-2', 'example.com/v1'),
    objects: {
      ...WIDGETS,
    },
    want: undefined,
  },
  {
    name: 'a Job has no scale',
    ref: owner('Job', 'j', 'j-1', 'batch/v1'),
    objects: BATCH,
    want: { error: 'jobs.batch does not implement the scale subresource' },
  },
];

describe('disruption finders', () => {
  for (const c of cases) {
    it(c.name, async () => {
      assert.deepEqual(await findController(getter(c.objects).get, 'ns', c.ref), c.want);
    });
  }

  it('asks for the Deployment only through a ReplicaSet that names it', async () => {
    const g = getter({ [`${APPS}/replicasets/solo`]: scalable('rs-2', 3) });
    await findController(g.get, 'ns', owner('ReplicaSet', 'solo', 'rs-2'));
    assert.ok(!g.asked.some((p) => p.includes('/deployments/')), g.asked.join(', '));
  });

  it('reads an apiVersion as its group and version', () => {
    assert.deepEqual(groupVersion('v1'), { group: '', version: 'v1' });
    assert.deepEqual(groupVersion('apps/v1'), { group: 'apps', version: 'v1' });
  });
});
