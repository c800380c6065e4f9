// The apps/v1 kinds' validation against kube-apiserver's (pkg/apis/apps/validation, the registry strategies'
// immutable selector): one row per rule, each in upstream's words and failing without it. Objects are defaulted first,
// as the server does.

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
import type { ResourceDef } from '../../../src/server/resourcedef.js';

type Json = Record<string, unknown>;

const object = (kind: string, spec: Json = {}, labels: Json = { app: 'x' }): KubeObject => ({
  apiVersion: 'apps/v1',
  kind,
  metadata: { name: 'x', namespace: 'default', resourceVersion: '1' },
  spec: {
    selector: { matchLabels: { app: 'x' } },
    template: { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
    ...spec,
  },
});
const defaulted = (def: ResourceDef, o: KubeObject) => {
  def.prepareForCreate!(o);
  return o;
};
const createErrors = (def: ResourceDef, o: KubeObject) => def.validation!.create(defaulted(def, o)).map(String);
const updateErrors = (def: ResourceDef, old: KubeObject, change: (spec: Json) => void) => {
  const prev = defaulted(def, old);
  const next = structuredClone(prev);
  change(next['spec'] as Json);
  def.prepareForUpdate!(next, prev, '');
  return def.validation!.update(next, prev).map(String);
};

describe('apps/v1 validation', () => {
  it('accepts a valid object of each kind', () => {
    for (const def of [deployments, replicaSets, daemonSets, statefulSets])
      assert.deepEqual(createErrors(def, object(def.kind)), [], def.kind);
  });

  it('the selector must match the template labels', () => {
    for (const def of [deployments, replicaSets, daemonSets, statefulSets])
      assert.deepEqual(
        createErrors(def, object(def.kind, {}, { app: 'other' })),
        [
          'spec.template.metadata.labels: Invalid value: map[string]string{"app":"other"}: `selector` does not match template `labels`',
        ],
        def.kind,
      );
  });

  it('the selector is required (a nil selector matches nothing)', () => {
    const o = object('Deployment');
    delete (o['spec'] as Json)['selector'];
    assert.deepEqual(createErrors(deployments, o), [
      'spec.selector: Required value',
      'spec.template.metadata.labels: Invalid value: map[string]string{"app":"x"}: `selector` does not match template `labels`',
    ]);
  });

  it('an empty selector is refused', () => {
    assert.deepEqual(createErrors(deployments, object('Deployment', { selector: {} })), [
      'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for deployment',
    ]);
    assert.match(
      createErrors(daemonSets, object('DaemonSet', { selector: {} }))[0]!,
      /empty selector is invalid for daemonset$/,
    );
  });

  it('the selector is immutable', () => {
    for (const def of [deployments, replicaSets, daemonSets])
      assert.deepEqual(
        updateErrors(def, object(def.kind), (s) => {
          s['selector'] = { matchLabels: { app: 'x', tier: 'web' } };
          (s['template'] as { metadata: { labels: Json } }).metadata.labels['tier'] = 'web';
        }),
        [
          'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"x", "tier":"web"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable',
        ],
        def.kind,
      );
  });

  it('replicas may not be negative, nor scaled below 0', () => {
    assert.deepEqual(createErrors(replicaSets, object('ReplicaSet', { replicas: -1 })), [
      'spec.replicas: Invalid value: -1: must be greater than or equal to 0',
    ]);
    assert.deepEqual(
      updateErrors(deployments, object('Deployment'), (s) => (s['replicas'] = -2)),
      ['spec.replicas: Invalid value: -2: must be greater than or equal to 0'],
    );
  });

  it("the template's Pod spec is validated as a Pod's, under spec.template.spec", () => {
    const o = object('Deployment', {
      template: { metadata: { labels: { app: 'x' } }, spec: { containers: [{ name: 'c' }] } },
    });
    assert.deepEqual(createErrors(deployments, o), ['spec.template.spec.containers[0].image: Required value']);
  });

  it('a template restarts Always and has no activeDeadlineSeconds', () => {
    const o = object('ReplicaSet', {
      template: {
        metadata: { labels: { app: 'x' } },
        spec: { restartPolicy: 'Never', activeDeadlineSeconds: 5, containers: [{ name: 'c', image: 'i' }] },
      },
    });
    assert.deepEqual(createErrors(replicaSets, o), [
      'spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"',
      'spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in ReplicaSet is not Supported',
    ]);
  });

  it("a Deployment's strategy: known types, bounds not both 0, progress deadline past minReadySeconds", () => {
    assert.deepEqual(createErrors(deployments, object('Deployment', { strategy: { type: 'Blue' } })), [
      'spec.strategy: Unsupported value: apps.DeploymentStrategy{Type:"Blue", RollingUpdate:(*apps.RollingUpdateDeployment)(nil)}: supported values: "Recreate", "RollingUpdate"',
    ]);
    const zero = { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: '0%' } };
    assert.deepEqual(createErrors(deployments, object('Deployment', { strategy: zero })), [
      'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"0%"}: may not be 0 when `maxSurge` is 0',
    ]);
    const recreate = { type: 'Recreate', rollingUpdate: { maxSurge: 1 } };
    assert.deepEqual(createErrors(deployments, object('Deployment', { strategy: recreate })), [
      "spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'",
    ]);
    const over = { rollingUpdate: { maxUnavailable: '120%', maxSurge: '200%' } };
    assert.deepEqual(createErrors(deployments, object('Deployment', { strategy: over })), [
      'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"120%"}: must not be greater than 100%',
    ]);
    assert.deepEqual(
      createErrors(deployments, object('Deployment', { minReadySeconds: 10, progressDeadlineSeconds: 10 })),
      ['spec.progressDeadlineSeconds: Invalid value: 10: must be greater than minReadySeconds'],
    );
  });

  it("a DaemonSet's rolling update has exactly one of maxSurge and maxUnavailable", () => {
    const both = { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 1 } } };
    assert.deepEqual(createErrors(daemonSets, object('DaemonSet', both)), [
      'spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: intstr.IntOrString{Type:0, IntVal:1, StrVal:""}: may not be set when maxUnavailable is non-zero',
    ]);
    const none = { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 0 } } };
    assert.deepEqual(createErrors(daemonSets, object('DaemonSet', none)), [
      'spec.updateStrategy.rollingUpdate.maxUnavailable: Required value: cannot be 0 when maxSurge is 0',
    ]);
    assert.match(
      createErrors(daemonSets, object('DaemonSet', { updateStrategy: { type: 'Never' } }))[0]!,
      /^spec\.updateStrategy: Unsupported value: apps\.DaemonSetUpdateStrategy\{Type:"Never".*supported values: "RollingUpdate", "OnDelete"$/,
    );
  });

  it("a StatefulSet's policy and strategy, and the spec fields an update may change", () => {
    assert.deepEqual(createErrors(statefulSets, object('StatefulSet', { podManagementPolicy: 'Random' })), [
      `spec.podManagementPolicy: Invalid value: "Random": must be 'OrderedReady' or 'Parallel'`,
    ]);
    assert.deepEqual(
      createErrors(
        statefulSets,
        object('StatefulSet', { updateStrategy: { type: 'OnDelete', rollingUpdate: { partition: 1 } } }),
      ),
      [
        "spec.updateStrategy.rollingUpdate: Invalid value: apps.RollingUpdateStatefulSetStrategy{Partition:1, MaxUnavailable:(*intstr.IntOrString)(nil)}: only allowed for updateStrategy 'RollingUpdate'",
      ],
    );
    assert.deepEqual(
      updateErrors(statefulSets, object('StatefulSet'), (s) => (s['replicas'] = 4)),
      [],
      'replicas may change',
    );
    assert.deepEqual(
      updateErrors(statefulSets, object('StatefulSet'), (s) => (s['serviceName'] = 'other')),
      [
        "spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
      ],
    );
  });

  it('a ControllerRevision needs data, which may not change', () => {
    const revision = (data: unknown): KubeObject => ({
      apiVersion: 'apps/v1',
      kind: 'ControllerRevision',
      metadata: { name: 'r', namespace: 'default', resourceVersion: '1' },
      revision: 1,
      ...(data === undefined ? {} : { data }),
    });
    assert.deepEqual(controllerRevisions.validation!.create(revision(undefined)).map(String), [
      'data: Required value: data is mandatory',
    ]);
    assert.deepEqual(controllerRevisions.validation!.update(revision({ spec: 2 }), revision({ spec: 1 })).map(String), [
      'data: Invalid value: runtime.RawExtension{…}: field is immutable',
    ]);
  });
});
