import { test } from 'node:test';
import assert from 'node:assert/strict';
import { imageRef, qosClass, runtimeStatus } from '../../../src/agent/pods/podstatus.js';
import type { RunningPod } from '../../../src/agent/pods/types.js';
import type { Pod } from '../../../src/api/workloads.js';

const pod: Pod = {
  metadata: { name: 'web', namespace: 'default', uid: '1234-ab' },
  spec: { nodeName: 'node-1', containers: [{ name: 'pause', image: 'registry.k8s.io/pause:3.9' }] },
};
const run: RunningPod = {
  uid: '1234-ab',
  namespace: 'default',
  name: 'web',
  ip: '10.244.1.2',
  startedAt: '2026-12-04T00:00:00Z',
  containers: [{ name: 'pause', image: 'registry.k8s.io/pause:3.9', startedAt: '2026-12-04T00:00:01Z' }],
};

test('image references as a runtime reports them', () => {
  assert.equal(imageRef('nginx'), 'docker.io/library/nginx:latest');
  assert.equal(imageRef('nginx:1.27'), 'docker.io/library/nginx:1.27');
  assert.equal(imageRef('bitnami/redis'), 'docker.io/bitnami/redis:latest');
  assert.equal(imageRef('registry.k8s.io/pause:3.9'), 'registry.k8s.io/pause:3.9');
  assert.equal(imageRef('localhost:5000/app'), 'localhost:5000/app:latest');
});

test('QoS classes as kube gives them', () => {
  assert.equal(qosClass([{ name: 'a' }]), 'BestEffort');
  assert.equal(qosClass([{ name: 'a', resources: { requests: { cpu: '100m' } } }]), 'Burstable');
  assert.equal(qosClass([{ name: 'a', resources: { limits: { cpu: '1', memory: '1Gi' } } }]), 'Guaranteed');
  assert.equal(
    qosClass([{ name: 'a', resources: { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '500m' } } }]),
    'Burstable',
  );
});

test('a running Pod: Running, its five conditions True in the kubelet order, IPs, start time, a running container', () => {
  const s = runtimeStatus(pod, run, '192.168.0.10', '2026-12-04T00:00:02Z');
  assert.equal(s.phase, 'Running');
  assert.deepEqual(
    s.conditions?.map((c) => [c.type, c.status]),
    [
      ['PodReadyToStartContainers', 'True'],
      ['Initialized', 'True'],
      ['Ready', 'True'],
      ['ContainersReady', 'True'],
      ['PodScheduled', 'True'],
    ],
  );
  assert.equal(s.podIP, '10.244.1.2');
  assert.deepEqual(s.hostIPs, [{ ip: '192.168.0.10' }]);
  assert.equal(s.startTime, '2026-12-04T00:00:00Z');
  assert.deepEqual(s.containerStatuses?.[0]?.state, { running: { startedAt: '2026-12-04T00:00:01Z' } });
  assert.equal(s.containerStatuses?.[0]?.ready, true);
  assert.equal(s.qosClass, 'BestEffort');
});

test('a condition keeps its transition time while its status stays; a changed one takes now', () => {
  const first = runtimeStatus(pod, run, '192.168.0.10', '2026-12-04T00:00:02Z');
  const again = runtimeStatus({ ...pod, status: first }, run, '192.168.0.10', '2026-12-04T00:05:00Z');
  assert.deepEqual(again, first, 'nothing changed: the same status, so nothing to write');
  const stopped = runtimeStatus(
    { ...pod, status: first },
    { ...run, stoppedAt: '2026-12-04T00:06:00Z' },
    '192.168.0.10',
    '2026-12-04T00:06:00Z',
  );
  assert.equal(stopped.phase, 'Succeeded');
  const ready = stopped.conditions?.find((c) => c.type === 'Ready');
  assert.deepEqual(
    [ready?.status, ready?.reason, ready?.lastTransitionTime],
    ['False', 'PodCompleted', '2026-12-04T00:06:00Z'],
  );
  const scheduled = stopped.conditions?.find((c) => c.type === 'PodScheduled');
  assert.equal(scheduled?.lastTransitionTime, '2026-12-04T00:00:02Z');
  assert.equal(stopped.containerStatuses?.[0]?.state.terminated?.reason, 'Completed');
});

test("conditions the kubelet does not own stay as the API has them, ahead of the kubelet's five", () => {
  const first = runtimeStatus(pod, run, '192.168.0.10', '2026-12-04T00:00:02Z');
  const evicted = {
    type: 'DisruptionTarget',
    status: 'True',
    reason: 'EvictionByEvictionAPI',
    message: 'Eviction API: evicting',
    lastProbeTime: null,
    lastTransitionTime: '2026-12-04T00:05:00Z',
  };
  const gate = { type: 'example.com/ready', status: 'False', lastTransitionTime: '2026-12-04T00:00:03Z' };
  const status = { ...first, conditions: [...first.conditions!, evicted, gate] };
  const stopped = runtimeStatus(
    { ...pod, status },
    { ...run, stoppedAt: '2026-12-04T00:06:00Z' },
    '192.168.0.10',
    '2026-12-04T00:06:00Z',
  );
  assert.equal(stopped.phase, 'Succeeded');
  assert.deepEqual(
    stopped.conditions?.map((c) => c.type),
    [
      'DisruptionTarget',
      'example.com/ready',
      'PodReadyToStartContainers',
      'Initialized',
      'Ready',
      'ContainersReady',
      'PodScheduled',
    ],
  );
  assert.deepEqual(stopped.conditions?.[0], evicted, 'the eviction condition unchanged');
  assert.deepEqual(stopped.conditions?.[1], gate);
});
