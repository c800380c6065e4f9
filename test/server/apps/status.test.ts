// A write of an apps/v1 kind's status against kube-apiserver's status validation (ValidateDeploymentStatus and its
// siblings): one row per rule.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../src/api/types.js';
import { statusErrors } from '../../../src/server/apps/status.js';
import { deployments, statefulSets } from '../../../src/server/apps/definition.js';

const of = (kind: string, status: Record<string, unknown>): KubeObject => ({
  apiVersion: 'apps/v1',
  kind,
  metadata: { name: 'x', namespace: 'default' },
  status,
});
const errors = (kind: string, status: Record<string, unknown>, old: Record<string, unknown> = {}) =>
  statusErrors(of(kind, status), of(kind, old)).map(String);

describe('apps/v1 status validation', () => {
  it('accepts consistent counts', () => {
    assert.deepEqual(
      errors('Deployment', { replicas: 3, updatedReplicas: 3, readyReplicas: 2, availableReplicas: 2 }),
      [],
    );
    assert.deepEqual(
      errors('DaemonSet', { desiredNumberScheduled: 2, numberReady: 5 }),
      [],
      'a DaemonSet has no bounds',
    );
  });

  it('refuses negative counts', () => {
    assert.deepEqual(errors('DaemonSet', { numberUnavailable: -1 }), [
      'status.numberUnavailable: Invalid value: -1: must be greater than or equal to 0',
    ]);
  });

  it('refuses a count above the replicas, and available above ready', () => {
    assert.deepEqual(errors('ReplicaSet', { replicas: 1, readyReplicas: 2, availableReplicas: 2 }), [
      'status.readyReplicas: Invalid value: 2: cannot be greater than status.replicas',
      'status.availableReplicas: Invalid value: 2: cannot be greater than status.replicas',
    ]);
    assert.deepEqual(errors('StatefulSet', { replicas: 3, readyReplicas: 1, availableReplicas: 2 }), [
      'status.availableReplicas: Invalid value: 2: cannot be greater than status.readyReplicas',
    ]);
    assert.deepEqual(errors('Deployment', { replicas: 3, readyReplicas: 1, availableReplicas: 2 }), [
      'status.availableReplicas: Invalid value: 2: cannot be greater than readyReplicas',
    ]);
  });

  it('collisionCount is never decremented, nor unset once set', () => {
    assert.deepEqual(errors('Deployment', { collisionCount: 1 }, { collisionCount: 2 }), [
      'status.collisionCount: Invalid value: 1: cannot be decremented',
    ]);
    assert.deepEqual(errors('StatefulSet', {}, { collisionCount: 0 }), [
      'status.collisionCount: Invalid value: 0: cannot be decremented',
    ]);
    assert.deepEqual(errors('DaemonSet', { collisionCount: 3 }, { collisionCount: 2 }), []);
  });

  it('is part of every update of the kinds', () => {
    for (const def of [deployments, statefulSets]) {
      const old: KubeObject = {
        apiVersion: 'apps/v1',
        kind: def.kind,
        metadata: { name: 'x', namespace: 'default', resourceVersion: '1' },
        spec: {
          selector: { matchLabels: { app: 'x' } },
          template: { metadata: { labels: { app: 'x' } }, spec: { containers: [{ name: 'c', image: 'i' }] } },
        },
      };
      def.prepareForCreate!(old);
      const next = { ...structuredClone(old), status: { replicas: 1, readyReplicas: 2 } };
      assert.deepEqual(
        def.validation!.update(next, old).map(String),
        ['status.readyReplicas: Invalid value: 2: cannot be greater than status.replicas'],
        def.kind,
      );
    }
  });
});
