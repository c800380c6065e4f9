// The scale subresource's conversions against kube's scale REST storage (pkg/registry/apps/*/storage): the Scale of
// an object, and a written Scale turned into the object's spec.replicas with its resourceVersion as precondition.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from '../../src/api/errors.js';
import type { KubeObject } from '../../src/api/types.js';
import { applyScale, scaleOf, selectorString } from '../../src/server/scale.js';
import { openapiV3Document } from '../../src/server/openapi.js';
import { acceptedPatchMediaTypes, SCALE_PATCH_MEDIA_TYPES } from '../../src/server/patchtypes.js';

const deployment = (): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: {
    name: 'web',
    namespace: 'default',
    uid: 'u-1',
    resourceVersion: '42',
    creationTimestamp: '2025-01-01T00:00:00Z',
    labels: { app: 'web' },
    generation: 3,
  },
  spec: {
    replicas: 2,
    selector: {
      matchLabels: { tier: 'front', app: 'web' },
      matchExpressions: [{ key: 'env', operator: 'In', values: ['b', 'a'] }],
    },
  },
  status: { replicas: 1 },
});

describe('the scale subresource', () => {
  it('reads a Scale: identity, spec.replicas, status.replicas, the selector as a string', () => {
    assert.deepEqual(scaleOf(deployment()), {
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      metadata: {
        name: 'web',
        namespace: 'default',
        uid: 'u-1',
        resourceVersion: '42',
        creationTimestamp: '2025-01-01T00:00:00Z',
      },
      spec: { replicas: 2 },
      status: { replicas: 1, selector: 'app=web,env in (a,b),tier=front' },
    });
  });

  it('a Scale to 0 has an empty spec, and an object with no status counts 0', () => {
    const o = deployment();
    (o['spec'] as { replicas: number }).replicas = 0;
    delete o['status'];
    const scale = scaleOf(o);
    assert.deepEqual(scale['spec'], {});
    assert.deepEqual((scale['status'] as { replicas: number }).replicas, 0);
  });

  it('writes the replicas into the object, pinned to the Scale resourceVersion when it names one', () => {
    const pinned = applyScale(
      deployment(),
      { metadata: { name: 'web', resourceVersion: '41' }, spec: { replicas: 5 } },
      'web',
    );
    assert.equal((pinned['spec'] as { replicas: number }).replicas, 5);
    assert.equal(pinned.metadata.resourceVersion, '41');
    assert.deepEqual(
      (pinned['spec'] as { selector: unknown }).selector,
      (deployment()['spec'] as { selector: unknown }).selector,
    );
    const free = applyScale(deployment(), { metadata: { name: 'web' }, spec: { replicas: 0 } }, 'web');
    assert.equal(free.metadata.resourceVersion, undefined);
    assert.equal((free['spec'] as { replicas: number }).replicas, 0);
  });

  it('refuses negative replicas as a 422 on the Scale, and another name as a 400', () => {
    assert.throws(
      () => applyScale(deployment(), { metadata: { name: 'web' }, spec: { replicas: -1 } }, 'web'),
      (err: unknown) =>
        err instanceof StatusError &&
        err.status.code === 422 &&
        err.status.message ===
          'Scale.autoscaling "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0',
    );
    assert.throws(
      () => applyScale(deployment(), { metadata: { name: 'db' }, spec: { replicas: 1 } }, 'web'),
      (err: unknown) => err instanceof StatusError && err.status.code === 400,
    );
  });

  it('renders selectors as metav1.LabelSelectorAsSelector(...).String() does', () => {
    assert.equal(selectorString({ matchLabels: { b: '2', a: '1' } }), 'a=1,b=2');
    assert.equal(selectorString({ matchExpressions: [{ key: 'k', operator: 'DoesNotExist' }] }), '!k');
    assert.equal(selectorString({}), '');
    assert.equal(selectorString({ matchExpressions: [{ key: 'k', operator: 'Near' }] }), undefined);
  });
});

describe('the scale subresource in /openapi/v3', () => {
  it('publishes GET, PUT and PATCH of an autoscaling/v1 Scale, without server-side apply', () => {
    const doc = openapiV3Document('apps/v1', [
      {
        plural: 'deployments',
        kind: 'Deployment',
        namespaced: true,
        verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'],
        subresources: ['status', 'scale'],
        patchTypes: acceptedPatchMediaTypes(false),
      },
    ]);
    const path = doc.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale'] as Record<
      string,
      { operationId: string; 'x-kubernetes-group-version-kind': object; requestBody?: { content: object } }
    >;
    assert.deepEqual(
      ['get', 'put', 'patch'].map((m) => path[m]?.operationId),
      [
        'readAppsV1NamespacedDeploymentScale',
        'replaceAppsV1NamespacedDeploymentScale',
        'patchAppsV1NamespacedDeploymentScale',
      ],
    );
    assert.deepEqual(path['get']?.['x-kubernetes-group-version-kind'], {
      group: 'autoscaling',
      version: 'v1',
      kind: 'Scale',
    });
    assert.deepEqual(Object.keys(path['patch']?.requestBody?.content ?? {}), [...SCALE_PATCH_MEDIA_TYPES]);
    assert.ok(doc.components.schemas['io.k8s.api.autoscaling.v1.Scale'], 'the Scale schema is published');
  });
});
