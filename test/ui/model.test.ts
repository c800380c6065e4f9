// The fleet view's pure decisions: grouping by active config, what needs attention and why, the state filter, the
// rows of the virtualised list, batch progress, the buttons a phase enables, a node's config events.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Event, Node, NodeCondition, NodeConfigSource } from '../../src/api/types.js';
import {
  fleetRows,
  groupNodes,
  kubeletVersionOf,
  LOCAL_GROUP,
  matchesState,
  nodeIssues,
  nodeView,
  sourceKey,
} from '../../src/ui/model/fleet.js';
import { availableActions, batchProgress, leftOut, pendingNodes } from '../../src/ui/model/rollout.js';
import { configEvents } from '../../src/ui/model/node.js';
import { assignedNodes, withNodeConfig } from '../../src/ui/model/assignment.js';
import type { NodeConfig } from '../../src/api/dkc/nodeconfig.js';

const cm = (name: string, rv?: string, uid = `uid-${name}`): NodeConfigSource => ({
  configMap: {
    namespace: 'kube-system',
    name,
    kubeletConfigKey: 'kubelet',
    ...(rv ? { uid, resourceVersion: rv } : {}),
  },
});
const ready: NodeCondition = { type: 'Ready', status: 'True', reason: 'KubeletReady' };

function node(
  name: string,
  o: {
    spec?: NodeConfigSource;
    assigned?: NodeConfigSource;
    active?: NodeConfigSource;
    error?: string;
    ready?: NodeCondition | null;
  } = {},
): Node {
  const config: Record<string, unknown> = {};
  if (o.assigned) config['assigned'] = o.assigned;
  if (o.active) config['active'] = o.active;
  if (o.error) config['error'] = o.error;
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name },
    spec: o.spec ? { configSource: o.spec } : {},
    status: { config, conditions: o.ready === null ? [] : [o.ready ?? ready] },
  };
}

describe('fleet grouping', () => {
  it('groups by the active ConfigMap, its uid and resourceVersion; the local config first; nodes by name', () => {
    const nodes = [
      node('n3', { spec: cm('blue'), assigned: cm('blue', '7'), active: cm('blue', '7') }),
      node('n1', { spec: cm('blue'), assigned: cm('blue', '7'), active: cm('blue', '7') }),
      node('n2', { spec: cm('blue'), assigned: cm('blue', '9'), active: cm('blue', '9') }),
      node('n4'),
      node('n5', { spec: cm('amber'), assigned: cm('amber', '3'), active: cm('amber', '3') }),
    ];
    const groups = groupNodes(nodes);
    assert.deepEqual(
      groups.map((g) => [g.title, g.resourceVersion, g.nodes.map((v) => v.name)]),
      [
        ['local config (no ConfigMap)', undefined, ['n4']],
        ['kube-system/amber:kubelet', '3', ['n5']],
        ['kube-system/blue:kubelet', '7', ['n1', 'n3']],
        ['kube-system/blue:kubelet', '9', ['n2']],
      ],
    );
    assert.equal(groups[0]!.key, LOCAL_GROUP);
    assert.equal(groups[2]!.uid, 'uid-blue');
    assert.notEqual(sourceKey(cm('blue', '7')), sourceKey(cm('blue', '9')));
  });

  it('a node assigned another ConfigMap stays with the config it runs and says assigned ≠ active, naming both', () => {
    const n = node('n1', { spec: cm('green'), assigned: cm('blue', '7'), active: cm('blue', '7') });
    const view = nodeView(n);
    assert.equal(view.groupKey, sourceKey(cm('blue', '7')));
    assert.deepEqual(view.issues, [
      {
        kind: 'not-active',
        label: 'Assigned ≠ active',
        reason: 'assigned kube-system/green:kubelet, active kube-system/blue:kubelet',
      },
    ]);
  });

  it('a newer resourceVersion downloaded but not yet running is assigned ≠ active too', () => {
    const issues = nodeIssues(node('n1', { spec: cm('blue'), assigned: cm('blue', '9'), active: cm('blue', '7') }));
    assert.deepEqual(
      issues.map((i) => i.reason),
      ['assigned kube-system/blue:kubelet resourceVersion 9, active kube-system/blue:kubelet resourceVersion 7'],
    );
  });

  it('status.config.error and NotReady/Unknown stand out with their reasons, the error first', () => {
    const bad = node('n1', {
      spec: cm('bad'),
      assigned: cm('bad', '4'),
      error: 'failed to validate assigned config, UID: x, ResourceVersion: 4',
      ready: { type: 'Ready', status: 'False', reason: 'KubeletNotReady', message: 'config invalid' },
    });
    assert.deepEqual(
      nodeIssues(bad).map((i) => [i.kind, i.label, i.reason]),
      [
        ['error', 'Config error', 'failed to validate assigned config, UID: x, ResourceVersion: 4'],
        ['not-ready', 'NotReady', 'KubeletNotReady: config invalid'],
        ['not-active', 'Assigned ≠ active', 'assigned kube-system/bad:kubelet, active local config (no ConfigMap)'],
      ],
    );
    const lost = node('n2', {
      ready: {
        type: 'Ready',
        status: 'Unknown',
        reason: 'NodeStatusUnknown',
        message: 'Kubelet stopped posting node status.',
      },
    });
    assert.deepEqual(nodeIssues(lost), [
      { kind: 'unknown', label: 'Unknown', reason: 'NodeStatusUnknown: Kubelet stopped posting node status.' },
    ]);
    assert.equal(nodeIssues(node('n3', { ready: null }))[0]?.kind, 'unknown');
    assert.deepEqual(nodeIssues(node('n4')), []);
  });

  it('counts each kind of issue per group and filters by state', () => {
    const nodes = [
      node('ok'),
      node('err', { spec: cm('bad'), error: 'boom' }),
      node('down', { ready: { type: 'Ready', status: 'Unknown', reason: 'NodeStatusUnknown' } }),
    ];
    const [local] = groupNodes(nodes);
    assert.deepEqual(local!.counts, { 'not-active': 1, error: 1, 'not-ready': 0, unknown: 1 });
    const names = (f: Parameters<typeof groupNodes>[1]) =>
      groupNodes(nodes, f).flatMap((g) => g.nodes.map((v) => v.name));
    assert.deepEqual(names('all'), ['down', 'err', 'ok']);
    assert.deepEqual(names('attention'), ['down', 'err']);
    assert.deepEqual(names('error'), ['err']);
    assert.deepEqual(names('not-active'), ['err']);
    assert.deepEqual(names('not-ready'), ['down']);
    assert.equal(matchesState(nodeView(nodes[0]!), 'attention'), false);
  });

  it('lays the groups out as rows, each header before its nodes, at fleet scale', () => {
    const nodes = Array.from({ length: 5000 }, (_, i) =>
      node(
        `node-${String(i).padStart(4, '0')}`,
        i % 2 ? {} : { spec: cm('blue'), assigned: cm('blue', '7'), active: cm('blue', '7') },
      ),
    );
    const started = performance.now();
    const rows = fleetRows(groupNodes(nodes));
    const ms = performance.now() - started;
    assert.equal(rows.length, 5002);
    assert.deepEqual([rows[0]!.kind, rows[1]!.kind, rows[2501]!.kind], ['group', 'node', 'group']);
    const second = rows[2502]!;
    assert.ok(
      second.kind === 'node' && second.group.title === 'kube-system/blue:kubelet' && second.view.name === 'node-0000',
    );
    assert.ok(ms < 1000, `grouping 5,000 nodes took ${ms.toFixed(0)} ms`);
  });
});

describe('kubelet versions', () => {
  it("each node's view carries the version it reports, '' when it reports none", () => {
    const reporting = {
      ...node('a'),
      status: { ...node('a').status, nodeInfo: { kubeletVersion: 'v1.30.0' } },
    } as Node;
    assert.equal(nodeView(reporting).kubeletVersion, 'v1.30.0');
    assert.equal(kubeletVersionOf(node('b')), '');
  });
});

describe('rollout progress', () => {
  it('counts each started batch by node state; nodes not yet in a batch are pending', () => {
    const status = {
      nodes: {
        a: { batch: 0, state: 'Succeeded' as const },
        b: { batch: 1, state: 'Succeeded' as const },
        c: { batch: 1, state: 'InFlight' as const },
        d: { batch: 1, state: 'Failed' as const },
        e: { state: 'Pending' as const },
        f: { batch: 2, state: 'Reverted' as const },
      },
    };
    assert.deepEqual(batchProgress(status), [
      { batch: 0, total: 1, succeeded: 1, failed: 0, inFlight: 0, other: 0 },
      { batch: 1, total: 3, succeeded: 1, failed: 1, inFlight: 1, other: 0 },
      { batch: 2, total: 1, succeeded: 0, failed: 0, inFlight: 0, other: 1 },
    ]);
    assert.equal(pendingNodes(status), 1);
    assert.deepEqual(batchProgress(undefined), []);
  });

  it('groups the nodes left out for their kubelet version by version and reason, oldest version first', () => {
    const why = 'unknown field singleProcessOOMKill';
    const status = {
      incompatible: [
        { node: 'n-9', kubeletVersion: '1.30', reason: why },
        { node: 'n-2', kubeletVersion: '1.22', reason: why },
        { node: 'n-1', kubeletVersion: '1.30', reason: why },
      ],
    };
    assert.deepEqual(leftOut(status), [
      { kubeletVersion: '1.22', reason: why, nodes: ['n-2'] },
      { kubeletVersion: '1.30', reason: why, nodes: ['n-1', 'n-9'] },
    ]);
    assert.deepEqual(leftOut(undefined), []);
  });

  it('enables pause while running, resume while paused, undo until reverted', () => {
    assert.deepEqual(availableActions('Progressing', false), { pause: true, resume: false, undo: true });
    assert.deepEqual(availableActions('Paused', true), { pause: false, resume: true, undo: true });
    assert.deepEqual(availableActions('Succeeded', false), { pause: false, resume: false, undo: true });
    assert.deepEqual(availableActions('Reverted', false), { pause: false, resume: false, undo: false });
  });
});

describe('node events', () => {
  it('keeps the config events, newest first', () => {
    const ev = (name: string, reason: string, at: string): Event => ({
      metadata: { name },
      involvedObject: { kind: 'Node', name: 'n1' },
      reason,
      lastTimestamp: at,
    });
    const events = [
      ev('a', 'KubeletConfigChanged', '2024-01-01T00:00:01Z'),
      ev('b', 'NodeReady', '2024-01-01T00:00:03Z'),
      ev('c', 'KubeletConfigChanged', '2024-01-01T00:00:02Z'),
    ];
    assert.deepEqual(
      configEvents(events).map((e) => e.metadata.name),
      ['c', 'a'],
    );
    assert.equal(configEvents(events, 1).length, 1);
  });
});

describe('assignments on the NodeConfig channel', () => {
  const nc = (name: string, spec?: NodeConfigSource, active?: NodeConfigSource): NodeConfig => ({
    metadata: { name },
    spec: spec ? { configSource: spec } : {},
    status: active ? { config: { assigned: active, active } } : {},
  });

  it("groups and judges a node by its NodeConfig's assignment and status, not the Node's", () => {
    const nodes = new Map([
      ['/n1', node('n1', { spec: cm('stale'), active: cm('stale', '1') })],
      ['/n2', node('n2')],
    ]);
    const ncs = new Map([['/n1', nc('n1', cm('blue'), cm('blue', '7'))]]);
    const shown = assignedNodes('nodeconfig', nodes, ncs);
    assert.deepEqual(
      groupNodes(shown.values()).map((g) => [g.title, g.nodes.map((v) => v.name)]),
      [
        ['local config (no ConfigMap)', ['n2']],
        ['kube-system/blue:kubelet', ['n1']],
      ],
    );
    assert.deepEqual(
      nodeIssues(withNodeConfig(node('n3'), nc('n3', cm('blue')))).map((i) => i.kind),
      ['not-active'],
      'assigned through its NodeConfig, not active yet',
    );
    assert.equal(assignedNodes('node', nodes, ncs), nodes, 'on the Node channel the Nodes as they are');
  });
});
