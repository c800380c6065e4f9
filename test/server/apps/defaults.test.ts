// The apps/v1 kinds' defaults against kube's (pkg/apis/apps/v1/defaults.go and the generated defaulters that walk
// into the Pod template) and the registry strategies' create and update rules: one row per default.

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

const template = () => ({
  metadata: { labels: { app: 'x' } },
  spec: { containers: [{ name: 'c', image: 'nginx:1.27', resources: { limits: { cpu: '1' } } }] },
});
const object = (kind: string, spec: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'apps/v1',
  kind,
  metadata: { name: 'x', namespace: 'default' },
  spec: { selector: { matchLabels: { app: 'x' } }, template: template(), ...spec },
});
const spec = (o: KubeObject) => o['spec'] as Record<string, unknown>;
const created = (def: typeof deployments, o: KubeObject) => {
  def.prepareForCreate!(o);
  return o;
};

describe('apps/v1 defaults', () => {
  it('a Deployment: one replica, RollingUpdate 25%/25%, ten revisions, a 600 s deadline', () => {
    const s = spec(created(deployments, object('Deployment')));
    assert.equal(s['replicas'], 1);
    assert.deepEqual(s['strategy'], {
      type: 'RollingUpdate',
      rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' },
    });
    assert.equal(s['revisionHistoryLimit'], 10);
    assert.equal(s['progressDeadlineSeconds'], 600);
  });

  it('keeps what the client set, and gives Recreate no rolling update', () => {
    const s = spec(
      created(
        deployments,
        object('Deployment', { replicas: 0, revisionHistoryLimit: 0, strategy: { type: 'Recreate' } }),
      ),
    );
    assert.equal(s['replicas'], 0);
    assert.equal(s['revisionHistoryLimit'], 0);
    assert.deepEqual(s['strategy'], { type: 'Recreate' });
  });

  it('fills a partial rolling update', () => {
    const s = spec(created(deployments, object('Deployment', { strategy: { rollingUpdate: { maxSurge: 2 } } })));
    assert.deepEqual(s['strategy'], { type: 'RollingUpdate', rollingUpdate: { maxSurge: 2, maxUnavailable: '25%' } });
  });

  it("the template's Pod spec as SetDefaults_PodSpec fills it, without what only a Pod gets", () => {
    const pod = (spec(created(replicaSets, object('ReplicaSet')))['template'] as { spec: Record<string, unknown> })
      .spec;
    assert.deepEqual(pod, {
      containers: [
        {
          name: 'c',
          image: 'nginx:1.27',
          resources: { limits: { cpu: '1' } },
          terminationMessagePath: '/dev/termination-log',
          terminationMessagePolicy: 'File',
          imagePullPolicy: 'IfNotPresent',
        },
      ],
      dnsPolicy: 'ClusterFirst',
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      securityContext: {},
      schedulerName: 'default-scheduler',
    });
  });

  it('a ReplicaSet: one replica and a status of zero replicas', () => {
    const o = created(replicaSets, object('ReplicaSet'));
    assert.equal(spec(o)['replicas'], 1);
    assert.deepEqual(o['status'], { replicas: 0 });
  });

  it('a DaemonSet: RollingUpdate maxUnavailable 1 maxSurge 0, ten revisions, template generation 1', () => {
    const o = created(daemonSets, object('DaemonSet'));
    assert.deepEqual(spec(o)['updateStrategy'], {
      type: 'RollingUpdate',
      rollingUpdate: { maxUnavailable: 1, maxSurge: 0 },
    });
    assert.equal(spec(o)['revisionHistoryLimit'], 10);
    assert.equal(o.metadata.annotations?.['deprecated.daemonset.template.generation'], '1');
    assert.deepEqual(o['status'], {
      currentNumberScheduled: 0,
      numberMisscheduled: 0,
      desiredNumberScheduled: 0,
      numberReady: 0,
    });
  });

  it("a DaemonSet's template generation moves with its template only", () => {
    const old = created(daemonSets, object('DaemonSet'));
    const same = structuredClone(old);
    spec(same)['minReadySeconds'] = 5;
    daemonSets.prepareForUpdate!(same, old, '');
    assert.equal(same.metadata.annotations?.['deprecated.daemonset.template.generation'], '1');
    const changed = structuredClone(old);
    (spec(changed)['template'] as { metadata: { labels: Record<string, string> } }).metadata.labels['v'] = '2';
    daemonSets.prepareForUpdate!(changed, old, '');
    assert.equal(changed.metadata.annotations?.['deprecated.daemonset.template.generation'], '2');
  });

  it('a StatefulSet: OrderedReady, RollingUpdate partition 0, Retain/Retain, one replica, ten revisions', () => {
    const o = created(
      statefulSets,
      object('StatefulSet', { volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: {} }] }),
    );
    const s = spec(o);
    assert.equal(s['podManagementPolicy'], 'OrderedReady');
    assert.deepEqual(s['updateStrategy'], { type: 'RollingUpdate', rollingUpdate: { partition: 0 } });
    assert.deepEqual(s['persistentVolumeClaimRetentionPolicy'], { whenDeleted: 'Retain', whenScaled: 'Retain' });
    assert.equal(s['replicas'], 1);
    assert.equal(s['revisionHistoryLimit'], 10);
    assert.deepEqual(s['volumeClaimTemplates'], [
      { metadata: { name: 'data' }, spec: { volumeMode: 'Filesystem' }, status: { phase: 'Pending' } },
    ]);
    assert.deepEqual(o['status'], { replicas: 0, availableReplicas: 0 });
  });

  it('a StatefulSet with OnDelete gets no rolling update', () => {
    const s = spec(created(statefulSets, object('StatefulSet', { updateStrategy: { type: 'OnDelete' } })));
    assert.deepEqual(s['updateStrategy'], { type: 'OnDelete' });
  });

  it('a status write is not defaulted again', () => {
    const old = created(deployments, object('Deployment'));
    const next = structuredClone(old);
    delete spec(next)['revisionHistoryLimit'];
    deployments.prepareForUpdate!(next, old, 'status');
    assert.equal(spec(next)['revisionHistoryLimit'], undefined);
    deployments.prepareForUpdate!(next, old, '');
    assert.equal(spec(next)['revisionHistoryLimit'], 10);
  });

  it('a ControllerRevision without a revision is at revision 0, as Go writes it', () => {
    const revision: KubeObject = {
      apiVersion: 'apps/v1',
      kind: 'ControllerRevision',
      metadata: { name: 'r' },
      data: {},
    };
    controllerRevisions.prepareForCreate!(revision);
    assert.equal(revision['revision'], 0);
  });
});
