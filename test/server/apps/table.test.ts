// The apps/v1 kinds' Table rows against kube's printers (printDeployment, printReplicaSet, printDaemonSet,
// printStatefulSet, printControllerRevision in pkg/printers/internalversion/printers.go).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../src/api/types.js';
import {
  controllerRevisions,
  daemonSets,
  deployments,
  replicaSets,
  statefulSets,
} from '../../../src/server/apps/definition.js';

const NOW = Date.parse('2025-01-01T01:00:00Z');
const object = (kind: string, spec: Record<string, unknown>, status: Record<string, unknown>): KubeObject => ({
  apiVersion: 'apps/v1',
  kind,
  metadata: { name: 'web', namespace: 'default', creationTimestamp: '2025-01-01T00:00:00Z' },
  spec: {
    selector: { matchLabels: { tier: 'front', app: 'web' } },
    template: {
      spec: {
        containers: [
          { name: 'a', image: 'x:1' },
          { name: 'b', image: 'y:2' },
        ],
      },
    },
    ...spec,
  },
  status,
});
const header = (cols: { name: string; priority: number }[]) => cols.map((c) => `${c.name}:${c.priority}`);

describe('apps/v1 tables', () => {
  it('deployments: READY ready/desired, UP-TO-DATE, AVAILABLE, then CONTAINERS IMAGES SELECTOR', () => {
    assert.deepEqual(header(deployments.columns), [
      'Name:0',
      'Ready:0',
      'Up-to-date:0',
      'Available:0',
      'Age:0',
      'Containers:1',
      'Images:1',
      'Selector:1',
    ]);
    const o = object('Deployment', { replicas: 3 }, { readyReplicas: 2, updatedReplicas: 3, availableReplicas: 1 });
    assert.deepEqual(deployments.row(o, NOW), ['web', '2/3', 3, 1, '60m', 'a,b', 'x:1,y:2', 'app=web,tier=front']);
  });

  it('replicasets: DESIRED CURRENT READY as integers', () => {
    assert.deepEqual(header(replicaSets.columns), [
      'Name:0',
      'Desired:0',
      'Current:0',
      'Ready:0',
      'Age:0',
      'Containers:1',
      'Images:1',
      'Selector:1',
    ]);
    assert.deepEqual(
      replicaSets.columns.slice(1, 4).map((c) => c.type),
      ['integer', 'integer', 'integer'],
    );
    const o = object('ReplicaSet', { replicas: 2 }, { replicas: 1 });
    assert.deepEqual(replicaSets.row(o, NOW), ['web', 2, 1, 0, '60m', 'a,b', 'x:1,y:2', 'app=web,tier=front']);
  });

  it('daemonsets: the counts, the template node selector (<none> when empty)', () => {
    assert.deepEqual(header(daemonSets.columns), [
      'Name:0',
      'Desired:0',
      'Current:0',
      'Ready:0',
      'Up-to-date:0',
      'Available:0',
      'Node Selector:0',
      'Age:0',
      'Containers:1',
      'Images:1',
      'Selector:1',
    ]);
    const status = { desiredNumberScheduled: 4, currentNumberScheduled: 3, numberReady: 2, updatedNumberScheduled: 1 };
    const o = object('DaemonSet', {}, status);
    assert.deepEqual(daemonSets.row(o, NOW), [
      'web',
      4,
      3,
      2,
      1,
      0,
      '<none>',
      '60m',
      'a,b',
      'x:1,y:2',
      'app=web,tier=front',
    ]);
    const pinned = object(
      'DaemonSet',
      { template: { spec: { nodeSelector: { zone: 'b', os: 'linux' }, containers: [] } } },
      {},
    );
    assert.equal(daemonSets.row(pinned, NOW)[6], 'os=linux,zone=b');
  });

  it('statefulsets: READY ready/desired, then CONTAINERS IMAGES', () => {
    assert.deepEqual(header(statefulSets.columns), ['Name:0', 'Ready:0', 'Age:0', 'Containers:1', 'Images:1']);
    assert.deepEqual(statefulSets.row(object('StatefulSet', { replicas: 2 }, { readyReplicas: 1 }), NOW), [
      'web',
      '1/2',
      '60m',
      'a,b',
      'x:1,y:2',
    ]);
  });

  it('controllerrevisions: the controller as kind.group/name, the revision', () => {
    const revision: KubeObject = {
      apiVersion: 'apps/v1',
      kind: 'ControllerRevision',
      metadata: {
        name: 'web-7d9',
        namespace: 'default',
        creationTimestamp: '2025-01-01T00:00:00Z',
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'web', uid: 'u', controller: true }],
      },
      revision: 3,
    };
    assert.deepEqual(controllerRevisions.row(revision, NOW), ['web-7d9', 'daemonset.apps/web', 3, '60m']);
    revision.metadata.ownerReferences = [];
    assert.equal(controllerRevisions.row(revision, NOW)[1], '<none>');
  });

  it('replicasets select on status.replicas, as ReplicaSetToSelectableFields', () => {
    const field = replicaSets.fields['status.replicas']!;
    assert.equal(field(object('ReplicaSet', {}, { replicas: 2 })), '2');
    assert.equal(field(object('ReplicaSet', {}, {})), '0');
    assert.deepEqual(Object.keys(deployments.fields), []);
  });
});
