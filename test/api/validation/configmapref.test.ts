// spec.configSource.configMapRef, the 1.8-alpha form: all of name, namespace and uid required, exactly one of it and
// configMap, the Warning that points to configMap; the 1.22 rules for configMap untouched.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';

import type { Node } from '../../../src/api/types.js';
import { CONFIG_MAP_REF_WARNING, validateUpdate, warningsFor } from '../../../src/api/validation/index.js';
import { invalidMessage } from './messages.js';

const PREFIX = 'Node "n1" is invalid: ';

function node(source?: unknown): Node {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: 'n1', uid: 'uid-1', resourceVersion: '7', creationTimestamp: '2024-01-01T00:00:00Z' },
    spec: source === undefined ? {} : { configSource: source },
    status: {},
  };
}

function updateMessage(next: Node): string {
  const errs = validateUpdate('Node', next, node());
  return errs.length ? invalidMessage('Node', 'n1', errs) : '';
}

const ref = { name: 'my-node-config-abc', namespace: 'kube-system', uid: '5e2c6a2b-0000-4000-8000-000000000001' };

describe('Node spec.configSource.configMapRef', () => {
  test('name, namespace and uid: accepted', () => {
    assert.equal(updateMessage(node({ configMapRef: ref })), '');
  });

  for (const missing of ['name', 'namespace', 'uid'] as const) {
    test(`without ${missing}: Required value`, () => {
      const r: Record<string, string> = { ...ref };
      delete r[missing];
      assert.equal(
        updateMessage(node({ configMapRef: r })),
        `${PREFIX}spec.configSource.configMapRef.${missing}: Required value: ${missing} must be set`,
      );
    });
  }

  test('name and namespace are checked as names', () => {
    const msg = updateMessage(node({ configMapRef: { ...ref, name: 'Bad_Name', namespace: 'kube.system' } }));
    assert.match(msg, /spec\.configSource\.configMapRef\.namespace: Invalid value: "kube\.system"/);
    assert.match(msg, /spec\.configSource\.configMapRef\.name: Invalid value: "Bad_Name"/);
  });

  test('both configMapRef and configMap: exactly one reference subfield must be non-nil', () => {
    const msg = updateMessage(
      node({ configMapRef: ref, configMap: { name: 'a', namespace: 'kube-system', kubeletConfigKey: 'kubelet' } }),
    );
    assert.equal(
      msg,
      `${PREFIX}spec.configSource: Invalid value: core.NodeConfigSource{ConfigMapRef:(*core.ObjectReference)(0xc000000000), ConfigMap:(*core.ConfigMapNodeConfigSource)(0xc000000010)}: exactly one reference subfield must be non-nil`,
    );
  });

  test('a Warning names configMap as the replacement; none for the 1.22 form', () => {
    assert.deepEqual(warningsFor('Node', node({ configMapRef: ref })), [CONFIG_MAP_REF_WARNING]);
    assert.match(CONFIG_MAP_REF_WARNING, /^spec\.configSource\.configMapRef: .*spec\.configSource\.configMap\b/);
    assert.deepEqual(
      warningsFor('Node', node({ configMap: { name: 'a', namespace: 'kube-system', kubeletConfigKey: 'kubelet' } })),
      [],
    );
    assert.deepEqual(warningsFor('Node', node()), []);
    assert.deepEqual(warningsFor('ConfigMap', node({ configMapRef: ref })), []);
  });
});
