// The Deployment controller's decisions reproduce kube's: the rolling update's scale steps (maxSurge rounds up,
// maxUnavailable down), Recreate, proportional scaling, history cleanup, conditions, and the lines
// `kubectl rollout status` prints from the statuses produced.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Deployment, ReplicaSet } from '../../../src/api/apps.js';
import { decideDeployment, newReplicaSetFor } from '../../../src/controllers/deployment/decide.js';
import { fenceposts } from '../../../src/controllers/deployment/replicasets.js';
import { rolloutStatusMessage } from '../../../src/controllers/deployment/rolloutstatus.js';
import { cluster, step, type Cluster } from './sim.js';

const T0 = Date.parse('2024-01-01T00:00:00Z');
const template = (image: string) => ({
  metadata: { labels: { app: 'web' } },
  spec: { containers: [{ name: 'c', image }] },
});

function deployment(replicas: number, image: string, spec: Partial<Deployment['spec']> = {}): Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'ns', uid: 'd1', generation: 1 },
    spec: { replicas, selector: { matchLabels: { app: 'web' } }, template: template(image), ...spec },
  };
}

/** A cluster where the Deployment has rolled out `image` (one ReplicaSet at full size, all available). */
function rolledOut(replicas: number, image: string, spec: Partial<Deployment['spec']> = {}, lag = 0): Cluster {
  const c = cluster(deployment(replicas, image, spec), [], lag, T0);
  for (let i = 0; i < 20; i++) step(c);
  assert.equal(rolloutStatusMessage(c.d).done, true);
  return c;
}

function changeTemplate(c: Cluster, image: string): void {
  c.d = {
    ...c.d,
    metadata: { ...c.d.metadata, generation: (c.d.metadata.generation ?? 1) + 1 },
    spec: { ...c.d.spec, template: template(image) },
  };
}

/** Syncs until the rollout is done, collecting events and the distinct rollout status lines. */
function rollout(c: Cluster, max = 40): { events: string[]; lines: string[]; sizes: [number, number][] } {
  const events: string[] = [];
  const lines = [rolloutStatusMessage(c.d).message];
  const sizes: [number, number][] = [];
  for (let i = 0; i < max && !rolloutStatusMessage(c.d).done; i++) {
    events.push(...step(c).events);
    const line = rolloutStatusMessage(c.d).message;
    if (line !== lines.at(-1)) lines.push(line);
    const total = c.rss.reduce((n, rs) => n + (rs.spec.replicas ?? 0), 0);
    const available = c.rss.reduce((n, rs) => n + (rs.status?.availableReplicas ?? 0), 0);
    sizes.push([total, available]);
  }
  return { events, lines, sizes };
}

describe('fenceposts', () => {
  it('maxSurge rounds up, maxUnavailable down, both 0 gives maxUnavailable 1', () => {
    const rows: [number, string | number, string | number, number, number][] = [
      [6, '25%', '25%', 2, 1],
      [10, '25%', '25%', 3, 2],
      [1, '25%', '25%', 1, 0],
      [3, 0, '10%', 0, 1],
      [4, 1, 0, 1, 0],
    ];
    for (const [n, surge, unavailable, s, u] of rows) {
      const d = deployment(n, 'a', {
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: surge, maxUnavailable: unavailable } },
      });
      assert.deepEqual(fenceposts(d), { maxSurge: s, maxUnavailable: u }, `${n} ${surge}/${unavailable}`);
    }
  });
});

describe('a new Deployment', () => {
  it('creates <name>-<hash> with pod-template-hash in selector, labels and template, and the annotations', () => {
    const out = decideDeployment({ deployment: deployment(3, 'a'), replicaSets: [], nowMs: T0 });
    const rs = out.create!;
    const hash = rs.metadata.labels!['pod-template-hash']!;
    assert.match(hash, /^[bcdfghjklmnpqrstvwxz2456789]+$/);
    assert.equal(rs.metadata.name, `web-${hash}`);
    assert.deepEqual(rs.spec.selector.matchLabels, { app: 'web', 'pod-template-hash': hash });
    assert.deepEqual(rs.spec.template?.metadata?.labels, { app: 'web', 'pod-template-hash': hash });
    assert.equal(rs.spec.replicas, 3);
    assert.deepEqual(rs.metadata.annotations, {
      'deployment.kubernetes.io/revision': '1',
      'deployment.kubernetes.io/desired-replicas': '3',
      'deployment.kubernetes.io/max-replicas': '4',
    });
    assert.deepEqual(rs.metadata.ownerReferences, [
      { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'd1', controller: true, blockOwnerDeletion: true },
    ]);
    assert.equal(out.revision, '1');
    assert.deepEqual(out.events, [`Scaled up replica set web-${hash} to 3`]);
    const progressing = out.status.conditions?.find((c) => c.type === 'Progressing');
    assert.equal(progressing?.reason, 'NewReplicaSetCreated');
    assert.equal(progressing?.message, `Created new replica set "web-${hash}"`);
  });

  it('a collision count changes the hash', () => {
    const d = deployment(1, 'a');
    const bumped = { ...d, status: { collisionCount: 1 } };
    assert.notEqual(newReplicaSetFor(d).metadata.name, newReplicaSetFor(bumped).metadata.name);
  });
});

describe('RollingUpdate', () => {
  it("replicas 6, maxSurge 25 %, maxUnavailable 25 %: kube's scale steps and rollout status lines", () => {
    const c = rolledOut(6, 'a');
    const oldName = c.rss[0]!.metadata.name!;
    changeTemplate(c, 'b');
    const { events, lines } = rollout(c);
    const newName = c.rss.find((rs) => rs.metadata.name !== oldName)!.metadata.name!;
    assert.deepEqual(events, [
      `Scaled up replica set ${newName} to 2`,
      `Scaled down replica set ${oldName} to 5 from 6`,
      `Scaled up replica set ${newName} to 3 from 2`,
      `Scaled down replica set ${oldName} to 2 from 5`,
      `Scaled up replica set ${newName} to 6 from 3`,
      `Scaled down replica set ${oldName} to 0 from 2`,
    ]);
    assert.deepEqual(lines, [
      'Waiting for deployment spec update to be observed...',
      'Waiting for deployment "web" rollout to finish: 0 out of 6 new replicas have been updated...',
      'Waiting for deployment "web" rollout to finish: 2 out of 6 new replicas have been updated...',
      'Waiting for deployment "web" rollout to finish: 3 out of 6 new replicas have been updated...',
      'Waiting for deployment "web" rollout to finish: 2 old replicas are pending termination...',
      'deployment "web" successfully rolled out',
    ]);
    const progressing = c.d.status?.conditions?.find((x) => x.type === 'Progressing');
    assert.equal(progressing?.reason, 'NewReplicaSetAvailable');
    assert.equal(progressing?.message, `ReplicaSet "${newName}" has successfully progressed.`);
    assert.equal(c.d.metadata.annotations?.['deployment.kubernetes.io/revision'], '2');
  });

  it('with Pods slow to become available, never above replicas + maxSurge nor below replicas − maxUnavailable', () => {
    const c = rolledOut(10, 'a', {}, 2);
    changeTemplate(c, 'b');
    const { sizes, lines } = rollout(c, 80);
    for (const [total, available] of sizes) {
      assert.ok(total <= 13, `total ${total}`);
      assert.ok(available >= 8, `available ${available}`);
    }
    assert.ok(
      lines.some((l) => / of 10 updated replicas are available\.\.\.$/.test(l)),
      lines.join('\n'),
    );
    assert.equal(lines.at(-1), 'deployment "web" successfully rolled out');
  });
});

describe('Recreate', () => {
  it('scales the old ReplicaSet to 0, waits for its Pods to go, then creates the new one at full size', () => {
    const c = rolledOut(3, 'a', { strategy: { type: 'Recreate' } });
    const oldName = c.rss[0]!.metadata.name!;
    changeTemplate(c, 'b');
    c.lag = 1;
    const first = step(c);
    assert.deepEqual(first.events, [`Scaled down replica set ${oldName} to 0 from 3`]);
    assert.equal(first.create, undefined, 'no new ReplicaSet while old Pods run');
    const second = step(c);
    assert.equal(second.create?.spec.replicas, 3);
    assert.deepEqual(second.events, [`Scaled up replica set ${second.create.metadata.name} to 3`]);
  });

  it('a Pod of an old ReplicaSet that is not terminal holds the new one back', () => {
    const c = rolledOut(1, 'a', { strategy: { type: 'Recreate' } });
    const old = c.rss[0]!;
    old.spec.replicas = 0;
    old.status = { replicas: 0 };
    changeTemplate(c, 'b');
    const running = {
      metadata: {
        name: 'p',
        ownerReferences: [
          { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'x', uid: old.metadata.uid!, controller: true },
        ],
      },
      status: { phase: 'Running' },
    };
    const held = decideDeployment({ deployment: c.d, replicaSets: c.rss, pods: [running], nowMs: c.nowMs });
    assert.equal(held.create, undefined);
    const done = decideDeployment({
      deployment: c.d,
      replicaSets: c.rss,
      pods: [{ ...running, status: { phase: 'Succeeded' } }],
      nowMs: c.nowMs,
    });
    assert.equal(done.create?.spec.replicas, 1);
  });
});

describe('scaling during a rollout', () => {
  it('spreads the extra replicas over the ReplicaSets by their share (proportional scaling)', () => {
    const c = rolledOut(10, 'a');
    c.lag = 1000;
    changeTemplate(c, 'b');
    step(c);
    // new 3 (maxSurge 3, none available), old 10 − 2 (maxUnavailable 2) → sizes 3 and 8, max-replicas 13.
    const sizes = () => c.rss.map((rs) => rs.spec.replicas).sort((a, b) => a! - b!);
    assert.deepEqual(sizes(), [3, 8]);
    c.d = { ...c.d, metadata: { ...c.d.metadata, generation: 3 }, spec: { ...c.d.spec, replicas: 20 } };
    const out = step(c);
    // allowed 20 + 5 = 25, to add 14: old round(8·25/13) = 15 (+7), new round(3·25/13) = 6 (+3), the
    // leftover 4 to the largest: old 19, new 6.
    assert.deepEqual(sizes(), [6, 19]);
    assert.equal(out.events.length, 2);
  });
});

describe('revision history', () => {
  it('keeps revisionHistoryLimit old ReplicaSets once the rollout is complete, deleting the lowest revisions', () => {
    const c = rolledOut(1, 'v0', { revisionHistoryLimit: 2 });
    for (let v = 1; v <= 4; v++) {
      changeTemplate(c, `v${v}`);
      rollout(c);
      step(c);
    }
    const revisions = c.rss.map((rs) => rs.metadata.annotations?.['deployment.kubernetes.io/revision']).sort();
    assert.deepEqual(revisions, ['3', '4', '5']);
  });
});

describe('conditions', () => {
  it('Available follows replicas − maxUnavailable', () => {
    const c = rolledOut(4, 'a');
    const available = c.d.status?.conditions?.find((x) => x.type === 'Available');
    assert.equal(available?.status, 'True');
    assert.equal(available?.reason, 'MinimumReplicasAvailable');
    assert.equal(available?.message, 'Deployment has minimum availability.');
    const rs = c.rss[0]!;
    rs.status = { ...rs.status!, availableReplicas: 2 };
    const out = decideDeployment({ deployment: c.d, replicaSets: c.rss, nowMs: c.nowMs });
    const after = out.status.conditions?.find((x) => x.type === 'Available');
    assert.deepEqual(
      [after?.status, after?.reason, after?.message],
      ['False', 'MinimumReplicasUnavailable', 'Deployment does not have minimum availability.'],
    );
  });

  it('Progressing turns ProgressDeadlineExceeded when nothing progresses for progressDeadlineSeconds', () => {
    const c = rolledOut(2, 'a', { progressDeadlineSeconds: 30 });
    c.lag = 100_000;
    changeTemplate(c, 'b');
    step(c);
    step(c);
    const stalled = step(c);
    assert.ok((stalled.requeueAfterSeconds ?? 0) > 0);
    c.nowMs += 60_000;
    step(c);
    const cond = c.d.status?.conditions?.find((x) => x.type === 'Progressing');
    const name = c.rss.find(
      (rs) =>
        rs.spec.template?.spec?.['containers'] !== undefined && JSON.stringify(rs.spec.template.spec).includes('"b"'),
    )!.metadata.name!;
    assert.deepEqual(
      [cond?.status, cond?.reason, cond?.message],
      ['False', 'ProgressDeadlineExceeded', `ReplicaSet "${name}" has timed out progressing.`],
    );
    assert.deepEqual(rolloutStatusMessage(c.d), {
      message: '',
      done: false,
      error: 'deployment "web" exceeded its progress deadline',
    });
  });

  it('pausing notes DeploymentPaused and makes no new ReplicaSet; resuming notes DeploymentResumed', () => {
    const c = rolledOut(2, 'a');
    changeTemplate(c, 'b');
    c.d.spec.paused = true;
    const paused = step(c);
    assert.equal(paused.create, undefined);
    const cond = () => c.d.status?.conditions?.find((x) => x.type === 'Progressing');
    assert.deepEqual(
      [cond()?.status, cond()?.reason, cond()?.message],
      ['Unknown', 'DeploymentPaused', 'Deployment is paused'],
    );
    c.d.spec.paused = false;
    const resumed = step(c);
    assert.ok(resumed.create);
    assert.equal(cond()?.reason, 'NewReplicaSetCreated');
    assert.ok(resumed.status.conditions);
  });

  it("carries a ReplicaSet's ReplicaFailure over to the Deployment", () => {
    const c = rolledOut(2, 'a');
    const rs: ReplicaSet = c.rss[0]!;
    rs.status = {
      ...rs.status!,
      conditions: [
        {
          type: 'ReplicaFailure',
          status: 'True',
          reason: 'FailedCreate',
          message: 'quota',
          lastTransitionTime: '2024-01-01T00:00:00Z',
        },
      ],
    };
    const out = decideDeployment({ deployment: c.d, replicaSets: c.rss, nowMs: c.nowMs });
    const f = out.status.conditions?.find((x) => x.type === 'ReplicaFailure');
    assert.deepEqual(f, {
      type: 'ReplicaFailure',
      status: 'True',
      reason: 'FailedCreate',
      message: 'quota',
      lastTransitionTime: '2024-01-01T00:00:00Z',
      lastUpdateTime: '2024-01-01T00:00:00Z',
    });
  });
});

describe('rolloutStatusMessage', () => {
  const d = (status: NonNullable<Deployment['status']>, generation = 1, replicas = 3): Deployment => ({
    ...deployment(replicas, 'a'),
    metadata: { name: 'web', generation },
    status,
  });
  it("goes through kubectl's checks in order", () => {
    const rows: [Deployment, string, boolean][] = [
      [d({ observedGeneration: 1 }, 2), 'Waiting for deployment spec update to be observed...', false],
      [
        d({ observedGeneration: 1, updatedReplicas: 1, replicas: 3 }),
        'Waiting for deployment "web" rollout to finish: 1 out of 3 new replicas have been updated...',
        false,
      ],
      [
        d({ observedGeneration: 1, updatedReplicas: 3, replicas: 4 }),
        'Waiting for deployment "web" rollout to finish: 1 old replicas are pending termination...',
        false,
      ],
      [
        d({ observedGeneration: 1, updatedReplicas: 3, replicas: 3, availableReplicas: 2 }),
        'Waiting for deployment "web" rollout to finish: 2 of 3 updated replicas are available...',
        false,
      ],
      [
        d({ observedGeneration: 1, updatedReplicas: 3, replicas: 3, availableReplicas: 3 }),
        'deployment "web" successfully rolled out',
        true,
      ],
    ];
    for (const [dep, message, done] of rows) assert.deepEqual(rolloutStatusMessage(dep), { message, done });
  });
});
