// The NodeConfigPolicy decision as a table: policies, a node's labels, the config it runs and the one it is to get,
// and the violations; then the verdict (403 text or warnings) and the nodes/configsource permission plugin.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StatusError } from '../../../src/api/errors.js';
import type { KubeObject } from '../../../src/api/types.js';
import { load, type KubeletConfiguration } from '../../../src/kubeletconfig/index.js';
import type { Authorizer, AuthorizationAttributes, UserInfo } from '../../../src/server/authz.js';
import { configSourcePermission } from '../../../src/server/auth/configsource.js';
import { nodes } from '../../../src/server/builtins.js';
import { compareToBound, evaluate, fieldAllowed, type Violation } from '../../../src/nodepolicy/evaluate.js';
import { readPolicy, type NodeConfigPolicy } from '../../../src/nodepolicy/spec.js';
import { verdict } from '../../../src/nodepolicy/verdict.js';
import { effectiveChange } from '../../../src/nodepolicy/flags.js';

const config = (yaml: string): KubeletConfiguration =>
  load(`apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n${yaml}`).config;
const policy = (name: string, spec: Record<string, unknown>): NodeConfigPolicy =>
  readPolicy({ metadata: { name }, spec });
/** A change between two configs, no flags. */
const change = (current: string, target: string) => effectiveChange(config(current), config(target), undefined);

const blue = policy('blue', {
  nodeSelector: { matchLabels: { pool: 'blue' } },
  allowedFields: ['maxPods', 'evictionHard.*', 'eventRecordQPS'],
  bounds: { maxPods: { minimum: 10, maximum: 250 } },
  enforcement: 'Deny',
});
const durations = policy('durations', {
  bounds: {
    syncFrequency: { minimum: '10s', maximum: '2m' },
    'evictionHard["memory.available"]': { minimum: '100Mi' },
  },
  enforcement: 'Warn',
});

type Row = {
  name: string;
  policies: NodeConfigPolicy[];
  labels: Record<string, string>;
  current: string;
  target: string;
  want: Partial<Violation>[];
};

const rows: Row[] = [
  {
    name: 'no policy: nothing to say',
    policies: [],
    labels: { pool: 'blue' },
    current: '',
    target: 'maxPods: 999\ncpuManagerPolicy: static\n',
    want: [],
  },
  {
    name: 'allowed field within bounds',
    policies: [blue],
    labels: { pool: 'blue' },
    current: '',
    target: 'maxPods: 50\n',
    want: [],
  },
  {
    name: 'spelling out a default is no change',
    policies: [policy('none', { allowedFields: [] })],
    labels: {},
    current: '',
    target: 'maxPods: 110\nsyncFrequency: 1m\n',
    want: [],
  },
  {
    name: 'a field outside allowedFields',
    policies: [blue],
    labels: { pool: 'blue' },
    current: '',
    target: 'cpuManagerPolicy: static\n',
    want: [{ policy: 'blue', path: 'cpuManagerPolicy', old: 'none', new: 'static', reason: { kind: 'not-allowed' } }],
  },
  {
    name: 'above the maximum, old value from the running config',
    policies: [blue],
    labels: { pool: 'blue' },
    current: 'maxPods: 60\n',
    target: 'maxPods: 300\n',
    want: [{ path: 'maxPods', old: 60, new: 300, reason: { kind: 'above-maximum', bound: 250 } }],
  },
  {
    name: 'below the minimum',
    policies: [blue],
    labels: { pool: 'blue' },
    current: '',
    target: 'maxPods: 5\n',
    want: [{ path: 'maxPods', old: 110, new: 5, reason: { kind: 'below-minimum', bound: 10 } }],
  },
  {
    name: 'a policy for another pool does not govern',
    policies: [blue],
    labels: { pool: 'green' },
    current: '',
    target: 'maxPods: 300\ncpuManagerPolicy: static\n',
    want: [],
  },
  {
    name: '"a.*" allows every key under a map',
    policies: [blue],
    labels: { pool: 'blue' },
    current: '',
    target: 'evictionHard:\n  memory.available: 200Mi\n  nodefs.available: 5%\n',
    want: [],
  },
  {
    name: 'an empty selector governs every node; exact paths do not cover children',
    policies: [policy('all', { allowedFields: ['evictionHard'] })],
    labels: {},
    current: 'evictionHard:\n  memory.available: 100Mi\n',
    target: 'evictionHard:\n  memory.available: 200Mi\n',
    want: [{ policy: 'all', path: 'evictionHard["memory.available"]', old: '100Mi', new: '200Mi' }],
  },
  {
    name: 'bounds on Durations and Quantities, and the Warn enforcement',
    policies: [durations],
    labels: {},
    current: '',
    target: 'syncFrequency: 5s\nevictionHard:\n  memory.available: 50Mi\n',
    want: [
      {
        enforcement: 'Warn',
        path: 'syncFrequency',
        old: '1m0s',
        new: '5s',
        reason: { kind: 'below-minimum', bound: '10s' },
      },
      {
        enforcement: 'Warn',
        path: 'evictionHard["memory.available"]',
        new: '50Mi',
        reason: { kind: 'below-minimum', bound: '100Mi' },
      },
    ],
  },
  {
    name: 'a bound the target already breaks counts even when unchanged',
    policies: [blue],
    labels: { pool: 'blue' },
    current: 'maxPods: 300\n',
    target: 'maxPods: 300\neventRecordQPS: 10\n',
    want: [{ path: 'maxPods', old: 300, new: 300, reason: { kind: 'above-maximum', bound: 250 } }],
  },
  {
    name: 'every governing policy reports',
    policies: [
      blue,
      policy('pods', { allowedFields: ['*'], bounds: { maxPods: { maximum: 100 } }, enforcement: 'Warn' }),
    ],
    labels: { pool: 'blue' },
    current: '',
    target: 'maxPods: 200\n',
    want: [{ policy: 'pods', enforcement: 'Warn', reason: { kind: 'above-maximum', bound: 100 } }],
  },
];

describe('NodeConfigPolicy decision', () => {
  for (const row of rows) {
    it(row.name, () => {
      const got = evaluate(row.policies, row.labels, change(row.current, row.target));
      assert.equal(got.length, row.want.length, JSON.stringify(got));
      row.want.forEach((w, i) => {
        const g = got[i]! as unknown as Record<string, unknown>;
        for (const [k, v] of Object.entries(w)) assert.deepEqual(g[k], v, `${row.name}: ${k}`);
      });
    });
  }

  it('a relabel in the same request cannot step out of a policy', () => {
    const got = evaluate([blue], [{ pool: 'green' }, { pool: 'blue' }], change('', 'maxPods: 300\n'));
    assert.equal(got.length, 1);
  });

  it('matches paths in both spellings', () => {
    assert.ok(fieldAllowed(['evictionHard.*'], ['evictionHard', 'memory.available']));
    assert.ok(fieldAllowed(['evictionHard["memory.available"]'], ['evictionHard', 'memory.available']));
    assert.ok(fieldAllowed(['authentication.webhook.*'], ['authentication', 'webhook', 'enabled']));
    assert.ok(!fieldAllowed(['authentication.webhook.*'], ['authentication', 'x509', 'clientCAFile']));
    assert.ok(!fieldAllowed(['maxPods'], ['maxPodsPerCore']));
    assert.ok(fieldAllowed(['*'], ['anything']));
  });

  it('compares bounds as numbers, Durations or Quantities', () => {
    assert.equal(compareToBound(5, 10), -1);
    assert.equal(compareToBound('90s', '1m'), 1);
    assert.equal(compareToBound('1Gi', '1024Mi'), 0);
    assert.equal(compareToBound('static', 3), undefined);
    assert.equal(compareToBound(true, 3), undefined);
  });

  it('an unparsable selector governs every node (a mistake makes a policy stricter)', () => {
    const p = policy('odd', {
      nodeSelector: { matchExpressions: [{ key: 'bad key!', operator: 'Exists' }] },
      allowedFields: [],
    });
    assert.equal(evaluate([p], { any: 'node' }, change('', 'maxPods: 3\n')).length, 1);
  });
});

describe('NodeConfigPolicy verdict', () => {
  const deny = evaluate([blue], { pool: 'blue' }, change('maxPods: 60\n', 'maxPods: 300\ncpuManagerPolicy: static\n'));
  const warn = evaluate([durations], {}, change('', 'syncFrequency: 5s\n'));

  it('Deny: one message naming the policy, the node and each field with old and new value', () => {
    assert.deepEqual(verdict([{ node: 'n1', violations: deny }]), {
      denied:
        'NodeConfigPolicy "blue" denies the config change on node "n1": cpuManagerPolicy: "none" -> "static" (not in allowedFields), maxPods: 60 -> 300 (above the maximum 250)',
      warnings: [],
    });
  });

  it('Warn: one warning per violation, nothing refused', () => {
    assert.deepEqual(verdict([{ node: 'n2', violations: warn }]), {
      warnings: [
        'NodeConfigPolicy "durations" (Warn) on node "n2": syncFrequency: "1m0s" -> "5s" (below the minimum 10s)',
      ],
    });
  });

  it('a rollout over many nodes reports at most 20 of them', () => {
    const many = Array.from({ length: 25 }, (_, i) => ({ node: `n${i}`, violations: deny }));
    const v = verdict(many);
    assert.match(v.denied!, /on node "n19".*; and 5 more$/);
    assert.doesNotMatch(v.denied!, /"n20"/);
  });
});

describe('nodes/configsource permission', () => {
  const asked: AuthorizationAttributes[] = [];
  const onlyOperators: Authorizer = {
    authorize(a) {
      asked.push(a);
      return a.user.groups.includes('operators')
        ? { decision: 'allow', reason: '' }
        : { decision: 'no-opinion', reason: '' };
    },
  };
  const plugin = configSourcePermission(onlyOperators);
  const node = (source: unknown, labels: Record<string, string> = {}): KubeObject => ({
    metadata: { name: 'n1', labels },
    spec: source === undefined ? {} : { configSource: source },
  });
  const src = { configMap: { namespace: 'kube-system', name: 'c', kubeletConfigKey: 'kubelet' } };
  const update = (user: UserInfo, from: KubeObject, to: KubeObject): Promise<void> =>
    Promise.resolve(
      plugin.validate!({
        user,
        operation: 'UPDATE',
        resource: nodes,
        subresource: '',
        namespace: '',
        name: 'n1',
        object: to,
        oldObject: from,
        dryRun: false,
      }),
    );
  const bob: UserInfo = { name: 'bob', groups: ['system:authenticated'] };

  it('refuses a user without it, naming the missing permission', async () => {
    await assert.rejects(update(bob, node(undefined), node(src)), (err: unknown) => {
      assert.ok(err instanceof StatusError);
      assert.equal(err.code, 403);
      assert.equal(
        err.message,
        'nodes "n1" is forbidden: User "bob" cannot update resource "nodes/configsource" in API group "" at the cluster scope: changing spec.configSource requires update on nodes/configsource',
      );
      return true;
    });
    assert.deepEqual(
      [asked.at(-1)!.verb, asked.at(-1)!.resource, asked.at(-1)!.subresource, asked.at(-1)!.name],
      ['update', 'nodes', 'configsource', 'n1'],
    );
    await assert.rejects(update(bob, node(src), node(undefined)), /nodes\/configsource/, 'clearing is a change too');
  });

  it('lets labels through, and lets holders assign', async () => {
    const before = asked.length;
    await update(bob, node(src), node(src, { pool: 'blue' }));
    assert.equal(asked.length, before, 'an unchanged source asks nothing');
    await update({ name: 'olivia', groups: ['operators'] }, node(undefined), node(src));
  });

  it('a node may clear its own source (NodeRestriction decides the rest)', async () => {
    await update({ name: 'system:node:n1', groups: ['system:nodes'] }, node(src), node(undefined));
    await assert.rejects(
      update({ name: 'system:node:n1', groups: ['system:nodes'] }, node(undefined), node(src)),
      /nodes\/configsource/,
    );
  });
});
