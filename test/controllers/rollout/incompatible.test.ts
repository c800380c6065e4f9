// A rollout over nodes of several kubelet versions: the selected nodes whose kubelet cannot run the target are never
// started, never failed, and listed in status.incompatible; without spec.strategy.skipIncompatible the rollout does
// not start while there are any; a node that joins later unsuited is left out the same way. The controller's judge
// reads the nodes' reported versions and the target's bytes.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ConfigMap, Node } from '../../../src/api/types.js';
import { CompatibilityJudge } from '../../../src/controllers/rollout/compat.js';
import { planRollout, type PlanInput } from '../../../src/controllers/rollout/plan/index.js';
import { kubeletVersion } from '../../../src/kubeletconfig/index.js';
import { incompatibleNodes, type Incompatibility } from '../../../src/nodepolicy/compat.js';
import { CM, NEW_ACTIVE, at, found, iso, leasesFor, node, rollout, switched } from './fixtures.js';

const HEAD = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n';
/** singleProcessOOMKill arrived in 1.32 (config/v1beta1/types.go at kubernetes/kubelet v0.32.0). */
const NEWER_FIELD = `${HEAD}singleProcessOOMKill: true\n`;

const withVersion = (n: Node, version: string): Node => ({
  ...n,
  status: { ...n.status, nodeInfo: { kubeletVersion: version } } as NonNullable<Node['status']>,
});
const fleet = (): Node[] => [
  withVersion(node('node-1'), 'v1.22.17-dkc'),
  withVersion(node('node-2'), 'v1.30.0'),
  withVersion(node('node-3'), 'v1.32.0'),
];

/** The nodes of `nodes` the config does not suit, as the controller hands them to the plan. */
function unsuited(config: string, nodes: readonly Node[]): Map<string, Incompatibility> {
  const kubelets = nodes.map((n) => ({
    node: n.metadata.name ?? '',
    kubelet: kubeletVersion((n.status as { nodeInfo: { kubeletVersion: string } }).nodeInfo.kubeletVersion.slice(1, 5)),
  }));
  return new Map(incompatibleNodes(config, kubelets).map((i) => [i.node, i]));
}

const input = (over: Partial<PlanInput>): PlanInput => {
  const nodes = over.nodes ?? fleet();
  const base = {
    rollout: rollout(),
    nodes,
    configMap: CM,
    others: [],
    now: at(10),
    startedAt: at(-3600),
    incompatible: unsuited(NEWER_FIELD, nodes),
  };
  return { ...base, leases: leasesFor(nodes, at(10)), ...over };
};

describe('a rollout with skipIncompatible', () => {
  it('starts only the node that can run the config and lists the others with their versions, not as failures', () => {
    const plan = planRollout(
      input({ rollout: rollout({ strategy: { canary: 1, maxUnavailable: 3, skipIncompatible: true } }) }),
    );
    assert.deepEqual(
      plan.assignments.map((p) => p.node),
      ['node-3'],
    );
    assert.equal(plan.status.phase, 'Progressing');
    assert.equal(plan.status.targetNodes, 1);
    assert.equal(plan.status.failedNodes, 0);
    assert.equal(plan.status.incompatibleNodes, 2);
    assert.deepEqual(plan.status.incompatible, [
      { node: 'node-1', kubeletVersion: '1.22', reason: 'unknown field singleProcessOOMKill' },
      { node: 'node-2', kubeletVersion: '1.30', reason: 'unknown field singleProcessOOMKill' },
    ]);
    assert.deepEqual(Object.keys(plan.status.nodes ?? {}), ['node-3']);
    // The record written before the patch already says who is left out.
    assert.equal(plan.intent?.incompatibleNodes, 2);
    assert.deepEqual(
      plan.events.filter((e) => e.reason === 'NodeIncompatible').map((e) => e.message),
      [
        'Node node-1 left out: its kubelet 1.22 cannot run the config (unknown field singleProcessOOMKill)',
        'Node node-2 left out: its kubelet 1.30 cannot run the config (unknown field singleProcessOOMKill)',
      ],
    );
  });

  it('succeeds once the nodes that can run it do, and says how many were left out', () => {
    const nodes = fleet();
    nodes[2] = withVersion(switched('node-3'), 'v1.32.0');
    const status = {
      phase: 'Progressing' as const,
      startTime: iso(0),
      currentBatch: 0,
      nodes: { 'node-3': { state: 'InFlight' as const, batch: 0, updatedAt: iso(0), previous: found() } },
    };
    const plan = planRollout(
      input({
        nodes,
        rollout: rollout({ strategy: { canary: 1, maxUnavailable: 1, skipIncompatible: true } }, status),
      }),
    );
    assert.equal(plan.status.phase, 'Succeeded');
    assert.equal(plan.status.succeededNodes, 1);
    assert.equal(plan.status.failedNodes, 0);
    assert.equal(plan.status.incompatibleNodes, 2);
    const complete = plan.status.conditions?.find((c) => c.type === 'Complete');
    assert.equal(
      complete?.message,
      '1 of 1 nodes run the new config; 2 nodes left out: their kubelet cannot run the config (status.incompatible)',
    );
  });
});

describe('a rollout without skipIncompatible', () => {
  it('starts no node while a selected node cannot run the config, and says which and why', () => {
    const plan = planRollout(input({}));
    assert.deepEqual(plan.assignments, []);
    assert.equal(plan.status.phase, 'Pending');
    const progressing = plan.status.conditions?.find((c) => c.type === 'Progressing');
    assert.equal(progressing?.reason, 'IncompatibleNodes');
    assert.equal(
      progressing?.message,
      'no node starts: the config does not suit the kubelet of some selected nodes (kubelet 1.22 (node-1): unknown field singleProcessOOMKill; ' +
        'kubelet 1.30 (node-2): unknown field singleProcessOOMKill); set spec.strategy.skipIncompatible to leave them out',
    );
    assert.equal(plan.status.incompatibleNodes, 2);
  });

  it('once started, leaves out a node that joins unsuited and carries on with the others', () => {
    const nodes = [
      withVersion(switched('node-3', { active: NEW_ACTIVE }), 'v1.32.0'),
      withVersion(node('node-4'), 'v1.32.0'),
      withVersion(node('node-5'), 'v1.30.2'),
    ];
    const status = {
      phase: 'Progressing' as const,
      startTime: iso(0),
      currentBatch: 0,
      nodes: { 'node-3': { state: 'Succeeded' as const, batch: 0, updatedAt: iso(0), previous: found() } },
    };
    const plan = planRollout(input({ nodes, rollout: rollout({}, status) }));
    assert.deepEqual(
      plan.assignments.map((p) => p.node),
      ['node-4'],
    );
    assert.deepEqual(plan.status.incompatible, [
      { node: 'node-5', kubeletVersion: '1.30', reason: 'unknown field singleProcessOOMKill' },
    ]);
    assert.equal(plan.status.failedNodes, 0);
  });

  it('a config every kubelet can run starts as it always has, with no incompatible fields in its status', () => {
    const nodes = fleet();
    const plan = planRollout(input({ nodes, incompatible: unsuited(`${HEAD}kubeAPIQPS: 20\n`, nodes) }));
    assert.deepEqual(
      plan.assignments.map((p) => p.node),
      ['node-1'],
    );
    assert.equal(plan.status.incompatible, undefined);
    assert.equal(plan.status.incompatibleNodes, undefined);
  });
});

describe("the controller's judge", () => {
  const cm = (text: string, rv = '1'): ConfigMap => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'c', namespace: 'kube-system', uid: 'u', resourceVersion: rv },
    data: { kubelet: text },
  });

  it('reads each node its reported version (none is the agent default, 1.22) and the ConfigMap content of this version', () => {
    const judge = new CompatibilityJudge();
    const nodes = [...fleet(), node('node-4')];
    assert.deepEqual([...judge.judge(cm(NEWER_FIELD), 'kubelet', nodes).keys()], ['node-1', 'node-2', 'node-4']);
    // The same uid and resourceVersion is the same content; a new resourceVersion is read again.
    assert.deepEqual([...judge.judge(cm(`${HEAD}kubeAPIQPS: 20\n`, '2'), 'kubelet', nodes).keys()], []);
    assert.deepEqual([...judge.judge(cm(NEWER_FIELD, '3'), 'missing', nodes).keys()], []);
  });
});
