import { test, describe } from 'node:test';
import assert from 'node:assert/strict';

import type { Node, NodeConfigSource, NodeConfigStatus } from '../../../src/api/types.js';
import {
  validateCreate,
  validateNode,
  validateNodeConfigSourceSpec,
  validateNodeConfigStatus,
  validateNodeUpdate,
  validateUpdate,
} from '../../../src/api/validation/index.js';
import { CONFIG_KEY_MSG, LABEL_MSG, SUBDOMAIN_MSG, invalidMessage, strings } from './messages.js';

const NIL_SOURCE = 'core.NodeConfigSource{ConfigMap:(*core.ConfigMapNodeConfigSource)(nil)}';
const PREFIX = 'Node "n1" is invalid: ';

function oldNode(): Node {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: 'n1', uid: 'uid-1', resourceVersion: '7', creationTimestamp: '2024-01-01T00:00:00Z' },
    spec: {},
    status: {},
  };
}

function withSource(source: unknown): Node {
  const n = oldNode();
  n.spec = { configSource: source as NodeConfigSource };
  return n;
}

function withStatusConfig(config: unknown): Node {
  const n = oldNode();
  n.status = { config: config as NodeConfigStatus };
  return n;
}

/** The 422 message of an update of n1 to `next`, or '' when it is accepted. */
function updateMessage(next: Node, opts: { subresource?: 'status' } = {}): string {
  const errs = validateUpdate('Node', next, oldNode(), opts);
  return errs.length ? invalidMessage('Node', 'n1', errs) : '';
}

const good = { namespace: 'kube-system', name: 'my-node-config-abc', kubeletConfigKey: 'kubelet' };

// Upstream: pkg/apis/core/validation/validation.go, ValidateNodeUpdate → validateNodeConfigSourceSpec.
describe('Node spec.configSource on update', () => {
  test('a valid ConfigMap reference is accepted', () => {
    assert.equal(updateMessage(withSource({ configMap: good })), '');
  });

  test('nil configSource is not validated', () => {
    assert.equal(updateMessage(withSource(null)), '');
    assert.equal(updateMessage(withSource(undefined)), '');
  });

  test('configSource: {} → exactly one reference subfield must be non-nil', () => {
    const msg = updateMessage(withSource({}));
    assert.equal(
      msg,
      `${PREFIX}spec.configSource: Invalid value: ${NIL_SOURCE}: exactly one reference subfield must be non-nil`,
    );
    assert.ok(msg.endsWith('exactly one reference subfield must be non-nil'));
  });

  test('configMap: null counts as no subfield', () => {
    assert.equal(
      updateMessage(withSource({ configMap: null })),
      `${PREFIX}spec.configSource: Invalid value: ${NIL_SOURCE}: exactly one reference subfield must be non-nil`,
    );
  });

  const required: Array<[string, Record<string, string>, string]> = [
    [
      'namespace',
      { name: 'bar', kubeletConfigKey: 'kubelet' },
      'spec.configSource.configMap.namespace: Required value: namespace must be set',
    ],
    [
      'name',
      { namespace: 'foo', kubeletConfigKey: 'kubelet' },
      'spec.configSource.configMap.name: Required value: name must be set',
    ],
    [
      'kubeletConfigKey',
      { namespace: 'foo', name: 'bar' },
      'spec.configSource.configMap.kubeletConfigKey: Required value: kubeletConfigKey must be set',
    ],
  ];
  for (const [what, cm, expected] of required) {
    test(`missing ${what}`, () => {
      assert.equal(updateMessage(withSource({ configMap: cm })), PREFIX + expected);
    });
  }

  test('empty strings count as missing', () => {
    assert.equal(
      updateMessage(withSource({ configMap: { namespace: '', name: 'bar', kubeletConfigKey: 'kubelet' } })),
      `${PREFIX}spec.configSource.configMap.namespace: Required value: namespace must be set`,
    );
  });

  test('uid must not be set in spec', () => {
    assert.equal(
      updateMessage(withSource({ configMap: { ...good, uid: 'foo' } })),
      `${PREFIX}spec.configSource.configMap.uid: Forbidden: uid must not be set in spec`,
    );
  });

  test('resourceVersion must not be set in spec', () => {
    assert.equal(
      updateMessage(withSource({ configMap: { ...good, resourceVersion: '1' } })),
      `${PREFIX}spec.configSource.configMap.resourceVersion: Forbidden: resourceVersion must not be set in spec`,
    );
  });

  test('namespace ../baz is not a DNS-1123 label', () => {
    assert.equal(
      updateMessage(withSource({ configMap: { ...good, namespace: '../baz' } })),
      `${PREFIX}spec.configSource.configMap.namespace: Invalid value: "../baz": ${LABEL_MSG}`,
    );
  });

  test('namespace longer than 63 characters', () => {
    const ns = 'a'.repeat(64);
    assert.equal(
      updateMessage(withSource({ configMap: { ...good, namespace: ns } })),
      `${PREFIX}spec.configSource.configMap.namespace: Invalid value: "${ns}": must be no more than 63 characters`,
    );
  });

  test('name ../bar is not a DNS-1123 subdomain', () => {
    assert.equal(
      updateMessage(withSource({ configMap: { ...good, name: '../bar' } })),
      `${PREFIX}spec.configSource.configMap.name: Invalid value: "../bar": ${SUBDOMAIN_MSG}`,
    );
  });

  test('a dotted name is a valid subdomain', () => {
    assert.equal(updateMessage(withSource({ configMap: { ...good, name: 'a.b.c' } })), '');
  });

  test('kubeletConfigKey ../qux fails the regex and the .. prefix rule', () => {
    const key = 'spec.configSource.configMap.kubeletConfigKey';
    assert.equal(
      updateMessage(withSource({ configMap: { ...good, kubeletConfigKey: '../qux' } })),
      `${PREFIX}[${key}: Invalid value: "../qux": ${CONFIG_KEY_MSG}, ${key}: Invalid value: "../qux": must not start with '..']`,
    );
  });

  test("kubeletConfigKey '.' and '..'", () => {
    const key = 'spec.configSource.configMap.kubeletConfigKey';
    assert.equal(
      updateMessage(withSource({ configMap: { ...good, kubeletConfigKey: '.' } })),
      `${PREFIX}${key}: Invalid value: ".": must not be '.'`,
    );
    assert.equal(
      updateMessage(withSource({ configMap: { ...good, kubeletConfigKey: '..' } })),
      `${PREFIX}${key}: Invalid value: "..": must not be '..'`,
    );
  });

  test('several errors aggregate in upstream order: uid, resourceVersion, namespace, name, key', () => {
    const p = 'spec.configSource.configMap';
    const msg = updateMessage(
      withSource({
        configMap: { uid: 'u', resourceVersion: '3', namespace: '../baz', name: '../bar', kubeletConfigKey: '../qux' },
      }),
    );
    assert.equal(
      msg,
      PREFIX +
        '[' +
        [
          `${p}.uid: Forbidden: uid must not be set in spec`,
          `${p}.resourceVersion: Forbidden: resourceVersion must not be set in spec`,
          `${p}.namespace: Invalid value: "../baz": ${LABEL_MSG}`,
          `${p}.name: Invalid value: "../bar": ${SUBDOMAIN_MSG}`,
          `${p}.kubeletConfigKey: Invalid value: "../qux": ${CONFIG_KEY_MSG}`,
          `${p}.kubeletConfigKey: Invalid value: "../qux": must not start with '..'`,
        ].join(', ') +
        ']',
    );
  });

  test('all required fields missing at once', () => {
    const p = 'spec.configSource.configMap';
    assert.equal(
      updateMessage(withSource({ configMap: {} })),
      `${PREFIX}[${p}.namespace: Required value: namespace must be set, ${p}.name: Required value: name must be set, ${p}.kubeletConfigKey: Required value: kubeletConfigKey must be set]`,
    );
  });

  test('the Status carries one cause per field error', () => {
    const errs = validateUpdate(
      'Node',
      withSource({ configMap: { ...good, uid: 'x', resourceVersion: '1' } }),
      oldNode(),
    );
    assert.deepEqual(
      errs.map((e) => ({ type: e.type, field: e.field, body: e.body() })),
      [
        {
          type: 'FieldValueForbidden',
          field: 'spec.configSource.configMap.uid',
          body: 'Forbidden: uid must not be set in spec',
        },
        {
          type: 'FieldValueForbidden',
          field: 'spec.configSource.configMap.resourceVersion',
          body: 'Forbidden: resourceVersion must not be set in spec',
        },
      ],
    );
  });

  test('validateNodeConfigSourceSpec can be called on its own with a custom path', () => {
    assert.deepEqual(strings(validateNodeConfigSourceSpec({}, 'x')), [
      `x: Invalid value: ${NIL_SOURCE}: exactly one reference subfield must be non-nil`,
    ]);
  });
});

describe('Node status.config on update', () => {
  const full = { ...good, uid: 'cm-uid', resourceVersion: '12' };

  test('complete references in assigned/active/lastKnownGood are accepted; error is free text', () => {
    assert.equal(
      updateMessage(
        withStatusConfig({
          assigned: { configMap: full },
          active: { configMap: full },
          lastKnownGood: { configMap: full },
          error: 'anything at all ../',
        }),
      ),
      '',
    );
  });

  test('uid and resourceVersion are required in status', () => {
    const p = 'status.config.assigned.configMap';
    assert.equal(
      updateMessage(withStatusConfig({ assigned: { configMap: good } })),
      `${PREFIX}[${p}.uid: Required value: uid must be set in status, ${p}.resourceVersion: Required value: resourceVersion must be set in status]`,
    );
  });

  test('each of assigned, active, lastKnownGood is checked at its own path', () => {
    for (const sub of ['assigned', 'active', 'lastKnownGood']) {
      assert.equal(
        updateMessage(withStatusConfig({ [sub]: {} })),
        `${PREFIX}status.config.${sub}: Invalid value: ${NIL_SOURCE}: exactly one reference subfield must be non-nil`,
      );
    }
  });

  test('common checks apply in status too', () => {
    assert.equal(
      updateMessage(withStatusConfig({ active: { configMap: { ...full, name: '../bar' } } })),
      `${PREFIX}status.config.active.configMap.name: Invalid value: "../bar": ${SUBDOMAIN_MSG}`,
    );
  });

  test('order: assigned, active, lastKnownGood', () => {
    const errs = validateNodeConfigStatus({ lastKnownGood: {}, assigned: {}, active: {} });
    assert.deepEqual(
      errs.map((e) => e.field),
      ['status.config.assigned', 'status.config.active', 'status.config.lastKnownGood'],
    );
  });

  test('the nodes/status strategy runs the same rules', () => {
    assert.equal(
      updateMessage(withStatusConfig({ assigned: { configMap: { ...full, uid: '' } } }), { subresource: 'status' }),
      `${PREFIX}status.config.assigned.configMap.uid: Required value: uid must be set in status`,
    );
  });

  test('spec and status errors together: spec first', () => {
    const n = withSource({});
    n.status = { config: { active: {} } };
    assert.equal(
      updateMessage(n),
      `${PREFIX}[spec.configSource: Invalid value: ${NIL_SOURCE}: exactly one reference subfield must be non-nil, status.config.active: Invalid value: ${NIL_SOURCE}: exactly one reference subfield must be non-nil]`,
    );
  });
});

describe('Node create', () => {
  test('a minimal node is valid', () => {
    assert.deepEqual(validateCreate('Node', { metadata: { name: 'node-1.example.com' } }), []);
  });

  test('configSource and status.config are validated on create exactly as on update', () => {
    const bad: unknown[] = [
      {},
      { configMap: { uid: 'x' } },
      { configMap: { ...good, kubeletConfigKey: '../../../etc/passwd' } },
      { configMap: { ...good, namespace: '../x' } },
      { configMap: { ...good, resourceVersion: '1' } },
    ];
    for (const source of bad) {
      const onCreate = strings(validateCreate('Node', withSource(source)));
      assert.notDeepEqual(onCreate, [], JSON.stringify(source));
      assert.deepEqual(
        onCreate,
        strings(validateUpdate('Node', withSource(source), oldNode())),
        JSON.stringify(source),
      );
    }
    assert.deepEqual(validateNode(withSource({ configMap: good })), []);
    const status = strings(validateCreate('Node', withStatusConfig({ active: {} })));
    assert.deepEqual(status, strings(validateUpdate('Node', withStatusConfig({ active: {} }), oldNode())));
    assert.notDeepEqual(status, []);
  });

  test('name must be a DNS-1123 subdomain', () => {
    const errs = validateCreate('Node', { metadata: { name: 'Node_1' } });
    assert.equal(
      invalidMessage('Node', 'Node_1', errs),
      `Node "Node_1" is invalid: metadata.name: Invalid value: "Node_1": ${SUBDOMAIN_MSG}`,
    );
  });

  test('name longer than 253 characters', () => {
    const name = 'a'.repeat(254);
    assert.deepEqual(strings(validateCreate('Node', { metadata: { name } })), [
      `metadata.name: Invalid value: "${name}": must be no more than 253 characters`,
    ]);
  });

  test('name is required', () => {
    assert.equal(
      invalidMessage('Node', '', validateCreate('Node', { metadata: {} })),
      'Node "" is invalid: metadata.name: Required value: name or generateName is required',
    );
  });

  test('namespace is forbidden on a cluster-scoped kind', () => {
    assert.deepEqual(strings(validateCreate('Node', { metadata: { name: 'n1', namespace: 'default' } })), [
      'metadata.namespace: Forbidden: not allowed on this type',
    ]);
  });

  test('taints: unknown effect, missing effect, bad key, duplicates (reported under metadata.taints as upstream)', () => {
    const n: Node = {
      metadata: { name: 'n1' },
      spec: {
        taints: [
          { key: 'a', effect: 'Bad' },
          { key: 'b', effect: '' },
          { key: 'c d', value: 'v', effect: 'NoSchedule' },
          { key: 'e', value: 'x', effect: 'NoExecute' },
          { key: 'e', value: 'y', effect: 'NoExecute' },
        ],
      },
    };
    assert.deepEqual(strings(validateCreate('Node', n)), [
      'metadata.taints[0].effect: Unsupported value: "Bad": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
      'metadata.taints[1].effect: Required value',
      `metadata.taints[2].key: Invalid value: "c d": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
      'metadata.taints[4]: Duplicate value: core.Taint{Key:"e", Value:"y", Effect:"NoExecute", TimeAdded:(*v1.Time)(nil)}: taints must be unique by key and effect pair',
    ]);
  });

  test('the same taint key with different effects is fine', () => {
    const n: Node = {
      metadata: { name: 'n1' },
      spec: {
        taints: [
          { key: 'k', effect: 'NoSchedule' },
          { key: 'k', effect: 'NoExecute' },
        ],
      },
    };
    assert.deepEqual(validateCreate('Node', n), []);
  });
});

describe('Node update: other immutable pieces', () => {
  test('podCIDR may be set once', () => {
    const old = oldNode();
    const next = oldNode();
    next.spec = { podCIDR: '10.0.0.0/24' };
    assert.deepEqual(validateNodeUpdate(next, old), []);
    old.spec = { podCIDR: '10.0.0.0/24' };
    next.spec = { podCIDR: '10.0.1.0/24', podCIDRs: ['10.0.1.0/24'] };
    assert.deepEqual(strings(validateNodeUpdate(next, old)), [
      'spec.podCIDRs: Forbidden: node updates may not change podCIDR except from "" to valid',
    ]);
  });

  test('providerID may be set once', () => {
    const old = oldNode();
    old.spec = { providerID: 'aws:///a' };
    const next = oldNode();
    next.spec = { providerID: 'aws:///b' };
    assert.deepEqual(strings(validateNodeUpdate(next, old)), [
      'spec.providerID: Forbidden: node updates may not change providerID except from "" to valid',
    ]);
  });

  test('duplicate status addresses', () => {
    const next = oldNode();
    next.status = {
      addresses: [
        { type: 'InternalIP', address: '10.0.0.1' },
        { type: 'Hostname', address: 'n1' },
        { type: 'InternalIP', address: '10.0.0.1' },
      ],
    };
    assert.deepEqual(strings(validateNodeUpdate(next, oldNode())), [
      'status.addresses[2]: Duplicate value: core.NodeAddress{Type:"InternalIP", Address:"10.0.0.1"}',
    ]);
  });

  test('metadata changes are checked too: uid is immutable', () => {
    const next = oldNode();
    next.metadata.uid = 'other';
    assert.equal(updateMessage(next), `${PREFIX}metadata.uid: Invalid value: "other": field is immutable`);
  });
});
