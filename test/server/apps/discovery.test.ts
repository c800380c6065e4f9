// The apps/v1 discovery document against kube-apiserver's: each resource with its verbs, short names and categories,
// then its subresources (scale as autoscaling/v1 Scale, status), in kube's order.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { apiGroup, apiResourceList } from '../../../src/server/discovery.js';
import { defaultRegistry } from '../../../src/server/registry.js';

const ALL = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const STATUS = ['get', 'patch', 'update'];

describe('apps/v1 discovery', () => {
  it('lists the kinds and their subresources as kube-apiserver does', () => {
    const list = apiResourceList(defaultRegistry(), 'apps', 'v1') as { groupVersion: string; resources: object[] };
    assert.equal(list.groupVersion, 'apps/v1');
    const main = (name: string, kind: string, shortNames: string[]) => ({
      name,
      singularName: name.slice(0, -1),
      namespaced: true,
      kind,
      verbs: ALL,
      ...(shortNames.length ? { shortNames } : {}),
      ...(kind === 'ControllerRevision' ? {} : { categories: ['all'] }),
    });
    const sub = (name: string, kind: string, extra: object = {}) => ({
      name,
      singularName: '',
      namespaced: true,
      ...extra,
      kind,
      verbs: STATUS,
    });
    const scale = (plural: string) => sub(`${plural}/scale`, 'Scale', { group: 'autoscaling', version: 'v1' });
    assert.deepEqual(list.resources, [
      main('controllerrevisions', 'ControllerRevision', []),
      main('daemonsets', 'DaemonSet', ['ds']),
      sub('daemonsets/status', 'DaemonSet'),
      main('deployments', 'Deployment', ['deploy']),
      scale('deployments'),
      sub('deployments/status', 'Deployment'),
      main('replicasets', 'ReplicaSet', ['rs']),
      scale('replicasets'),
      sub('replicasets/status', 'ReplicaSet'),
      main('statefulsets', 'StatefulSet', ['sts']),
      scale('statefulsets'),
      sub('statefulsets/status', 'StatefulSet'),
    ]);
  });

  it('serves the apps group at v1, preferred', () => {
    assert.deepEqual(apiGroup(defaultRegistry(), 'apps'), {
      kind: 'APIGroup',
      apiVersion: 'v1',
      name: 'apps',
      versions: [{ groupVersion: 'apps/v1', version: 'v1' }],
      preferredVersion: { groupVersion: 'apps/v1', version: 'v1' },
    });
  });
});
