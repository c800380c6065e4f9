// Strategic merge patch engine: the patches kubectl patch/edit send for the kinds we serve, every
// directive ($patch, $retainKeys, $setElementOrder, $deleteFromPrimitiveList), the merge lists of
// the schema versus replaced lists, malformed patches with their PatchError codes, and immutability.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

import {
  applyPatch,
  applyStrategicMergePatch,
  applyStrategicMergePatchWithMeta,
  MAX_DEPTH,
  PatchError,
  patchMetaForKind,
  type JsonObject,
  type JsonValue,
  type PatchErrorCode,
} from '../../../src/server/patch/index.js';

function deepFreeze<T>(v: T): T {
  if (typeof v === 'object' && v !== null) {
    for (const c of Object.values(v)) deepFreeze(c);
    Object.freeze(v);
  }
  return v;
}

/** Frozen inputs: any attempt by the engine to mutate them throws in strict mode. */
const smp = (doc: JsonObject, patch: JsonValue, kind = 'Node'): JsonObject =>
  applyStrategicMergePatch(deepFreeze(structuredClone(doc)), deepFreeze(structuredClone(patch)), kind);

function throwsPatch(fn: () => unknown, code: PatchErrorCode, message?: RegExp): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof PatchError, `expected a PatchError, got ${String(err)}`);
    assert.equal(err.code, code, `code of "${err.message}"`);
    if (message) assert.match(err.message, message);
    return true;
  });
}

function node(): JsonObject {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: 'node-1',
      labels: { 'kubernetes.io/hostname': 'node-1', tier: 'a' },
      finalizers: ['example.com/a', 'example.com/b'],
      ownerReferences: [
        { apiVersion: 'v1', kind: 'X', name: 'one', uid: 'u1' },
        { apiVersion: 'v1', kind: 'X', name: 'two', uid: 'u2' },
      ],
    },
    spec: {
      podCIDR: '10.244.0.0/24',
      podCIDRs: ['10.244.0.0/24'],
      taints: [{ key: 'dedicated', value: 'x', effect: 'NoSchedule' }],
      configSource: { configMap: { name: 'cfg-1', namespace: 'kube-system', kubeletConfigKey: 'kubelet' } },
    },
    status: {
      conditions: [
        { type: 'Ready', status: 'True', reason: 'KubeletReady' },
        { type: 'MemoryPressure', status: 'False', reason: 'KubeletHasSufficientMemory' },
      ],
      addresses: [
        { type: 'InternalIP', address: '10.0.0.1' },
        { type: 'Hostname', address: 'node-1' },
      ],
      images: [{ names: ['a:1'], sizeBytes: 1 }],
    },
  };
}

const get = (v: JsonValue | undefined, ...path: string[]): JsonValue | undefined => {
  let cur = v;
  for (const p of path) cur = cur !== null && typeof cur === 'object' && !Array.isArray(cur) ? cur[p] : undefined;
  return cur;
};

describe('maps', () => {
  it('merges recursively and deletes with null', () => {
    const out = smp(node(), {
      metadata: { labels: { tier: null, edited: 'yes' } },
      spec: { configSource: { configMap: { name: 'cfg-2', uid: null } }, unschedulable: true },
    });
    assert.deepEqual(get(out, 'metadata', 'labels'), { 'kubernetes.io/hostname': 'node-1', edited: 'yes' });
    assert.deepEqual(get(out, 'spec', 'configSource'), {
      configMap: { name: 'cfg-2', namespace: 'kube-system', kubeletConfigKey: 'kubelet' },
    });
    assert.equal(get(out, 'spec', 'unschedulable'), true);
    assert.equal(get(out, 'metadata', 'name'), 'node-1');
  });

  it('applies the kubectl edit patch from the reference', () => {
    const patch = {
      metadata: { labels: { edited: 'yes' } },
      spec: {
        configSource: { configMap: { kubeletConfigKey: 'kubelet', name: 'edited-config', namespace: 'kube-system' } },
      },
    };
    const out = smp(node(), patch);
    assert.equal(get(out, 'metadata', 'labels', 'edited'), 'yes');
    assert.equal(get(out, 'spec', 'configSource', 'configMap', 'name'), 'edited-config');
  });

  it('null for a missing key is ignored, and nulls inside new maps are dropped', () => {
    const out = smp({ a: 1 }, { b: null, c: { d: null, e: 1 } }, 'ConfigMap');
    assert.deepEqual(out, { a: 1, c: { e: 1 } });
  });

  it('merges nested maps at paths the schema does not know', () => {
    const out = smp({ spec: { extra: { deep: { a: 1, b: 2 } } } }, { spec: { extra: { deep: { b: 3, c: 4 } } } });
    assert.deepEqual(out, { spec: { extra: { deep: { a: 1, b: 3, c: 4 } } } });
  });

  it('replaces a value of another JSON type outright', () => {
    assert.deepEqual(smp({ a: [1], b: 's', c: { x: 1 } }, { a: { k: 1 }, b: [1], c: 'flat' }, 'Thing'), {
      a: { k: 1 },
      b: [1],
      c: 'flat',
    });
  });

  it('"$patch: replace" inside a map replaces the whole map', () => {
    const out = smp(node(), { metadata: { labels: { $patch: 'replace', only: 'this' } } });
    assert.deepEqual(get(out, 'metadata', 'labels'), { only: 'this' });
    assert.equal(get(out, 'metadata', 'name'), 'node-1');
  });

  it('"$patch: replace" with nothing else leaves an empty map', () => {
    assert.deepEqual(get(smp(node(), { metadata: { labels: { $patch: 'replace' } } }), 'metadata', 'labels'), {});
  });

  it('"$patch: delete" on a map removes it', () => {
    const out = smp(node(), { spec: { configSource: { $patch: 'delete' } } });
    assert.equal(get(out, 'spec', 'configSource'), undefined);
    assert.ok(!Object.prototype.hasOwnProperty.call(get(out, 'spec'), 'configSource'));
    assert.equal(get(out, 'spec', 'podCIDR'), '10.244.0.0/24');
  });

  it('"$patch: delete" on a missing map does not create it', () => {
    assert.deepEqual(smp({ a: 1 }, { b: { $patch: 'delete', x: 1 } }, 'ConfigMap'), { a: 1 });
  });

  it('"$patch: delete" at the root empties the object', () => {
    assert.deepEqual(smp(node(), { $patch: 'delete' }), {});
  });

  it('"$patch: replace" at the root replaces the object', () => {
    assert.deepEqual(smp(node(), { $patch: 'replace', kind: 'Node', metadata: { name: 'n' } }), {
      kind: 'Node',
      metadata: { name: 'n' },
    });
  });

  it('"$patch: merge" is the explicit default', () => {
    const out = smp(node(), { metadata: { labels: { $patch: 'merge', x: 'y' } } });
    assert.deepEqual(get(out, 'metadata', 'labels'), { 'kubernetes.io/hostname': 'node-1', tier: 'a', x: 'y' });
  });

  it('"$patch: replace" on a new map strips the directive', () => {
    assert.deepEqual(smp({}, { data: { $patch: 'replace', k: 'v' } }, 'ConfigMap'), { data: { k: 'v' } });
  });
});

describe('$retainKeys', () => {
  it('keeps only the listed keys after merging', () => {
    const out = smp(
      { spec: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 }, other: 1 } } },
      {
        spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } },
      },
      'Thing',
    );
    assert.deepEqual(out, { spec: { strategy: { type: 'Recreate' } } });
  });

  it('keeps listed keys the patch does not touch and accepts nulls for unlisted ones', () => {
    const out = smp({ m: { a: 1, b: 2, c: 3 } }, { m: { $retainKeys: ['a', 'b'], b: 5, c: null } }, 'Thing');
    assert.deepEqual(out, { m: { a: 1, b: 5 } });
  });

  it('applies to new maps too, and never leaves the directive behind', () => {
    assert.deepEqual(smp({}, { m: { $retainKeys: ['a'], a: 1 } }, 'Thing'), { m: { a: 1 } });
  });

  it('rejects a patch that sets a key it does not retain', () => {
    throwsPatch(
      () => smp({ m: { a: 1 } }, { m: { $retainKeys: ['a'], b: 2 } }, 'Thing'),
      'DKC_PATCH_INVALID',
      /retainKeys/,
    );
  });

  it('rejects a $retainKeys that is not a list of strings', () => {
    throwsPatch(() => smp({ m: {} }, { m: { $retainKeys: 'a' } }, 'Thing'), 'DKC_PATCH_INVALID', /retainKeys/);
    throwsPatch(() => smp({ m: {} }, { m: { $retainKeys: [1] } }, 'Thing'), 'DKC_PATCH_INVALID', /retainKeys/);
  });
});

describe('merge lists of primitives', () => {
  it('adds podCIDRs in the $setElementOrder order (kubectl edit)', () => {
    const out = smp(node(), {
      spec: { '$setElementOrder/podCIDRs': ['10.244.0.0/24', 'fd00::/64'], podCIDRs: ['fd00::/64'] },
    });
    assert.deepEqual(get(out, 'spec', 'podCIDRs'), ['10.244.0.0/24', 'fd00::/64']);
    assert.deepEqual(get(out, 'spec', 'taints'), [{ key: 'dedicated', value: 'x', effect: 'NoSchedule' }]);
  });

  it('reorders a set with $setElementOrder alone', () => {
    const doc = { spec: { podCIDRs: ['a', 'b', 'c'] } };
    assert.deepEqual(smp(doc, { spec: { '$setElementOrder/podCIDRs': ['c', 'a', 'b'] } }), {
      spec: { podCIDRs: ['c', 'a', 'b'] },
    });
  });

  it('creates a list the original does not have, in the given order', () => {
    const out = smp({ spec: {} }, { spec: { '$setElementOrder/podCIDRs': ['b', 'a'], podCIDRs: ['b', 'a'] } });
    assert.deepEqual(out, { spec: { podCIDRs: ['b', 'a'] } });
  });

  it('set-merges finalizers without duplicates', () => {
    const out = smp(node(), { metadata: { finalizers: ['example.com/b', 'example.com/c', 'example.com/c'] } });
    assert.deepEqual(get(out, 'metadata', 'finalizers'), ['example.com/a', 'example.com/b', 'example.com/c']);
  });

  it('puts patch values in patch order ahead of server-only values they cannot be compared with', () => {
    const out = smp({ metadata: { finalizers: ['a', 'b'] } }, { metadata: { finalizers: ['c'] } }, 'ConfigMap');
    assert.deepEqual(get(out, 'metadata', 'finalizers'), ['c', 'a', 'b']);
  });

  it('removes values with $deleteFromPrimitiveList', () => {
    const out = smp(node(), { metadata: { '$deleteFromPrimitiveList/finalizers': ['example.com/a', 'not-there'] } });
    assert.deepEqual(get(out, 'metadata', 'finalizers'), ['example.com/b']);
  });

  it('combines deletion, addition and ordering as kubectl edit sends them', () => {
    const out = smp(node(), {
      metadata: {
        '$deleteFromPrimitiveList/finalizers': ['example.com/a'],
        '$setElementOrder/finalizers': ['example.com/c', 'example.com/b'],
        finalizers: ['example.com/c'],
      },
    });
    assert.deepEqual(get(out, 'metadata', 'finalizers'), ['example.com/c', 'example.com/b']);
  });

  it('$deleteFromPrimitiveList on a missing list changes nothing', () => {
    assert.deepEqual(
      smp({ metadata: {} }, { metadata: { '$deleteFromPrimitiveList/finalizers': ['x'] } }, 'ConfigMap'),
      { metadata: {} },
    );
  });

  it('$deleteFromPrimitiveList also works on lists without a merge strategy', () => {
    assert.deepEqual(
      smp({ spec: { list: ['a', 'b', 'a'] } }, { spec: { '$deleteFromPrimitiveList/list': ['a'] } }, 'Thing'),
      { spec: { list: ['b'] } },
    );
  });

  it('"$patch: replace" element replaces a primitive merge list', () => {
    const out = smp(node(), { spec: { podCIDRs: ['fd00::/64', { $patch: 'replace' }] } });
    assert.deepEqual(get(out, 'spec', 'podCIDRs'), ['fd00::/64']);
  });
});

describe('merge lists of objects', () => {
  it('updates one condition and keeps the order given by $setElementOrder', () => {
    const out = smp(node(), {
      status: {
        '$setElementOrder/conditions': [{ type: 'Ready' }, { type: 'MemoryPressure' }],
        conditions: [{ type: 'Ready', status: 'False' }],
      },
    });
    assert.deepEqual(get(out, 'status', 'conditions'), [
      { type: 'Ready', status: 'False', reason: 'KubeletReady' },
      { type: 'MemoryPressure', status: 'False', reason: 'KubeletHasSufficientMemory' },
    ]);
  });

  it('merges conditions by type without $setElementOrder, leaving the others untouched', () => {
    const out = smp(node(), { status: { conditions: [{ type: 'MemoryPressure', status: 'Unknown', reason: null }] } });
    assert.deepEqual(get(out, 'status', 'conditions'), [
      { type: 'Ready', status: 'True', reason: 'KubeletReady' },
      { type: 'MemoryPressure', status: 'Unknown' },
    ]);
  });

  it('adds a new condition ahead of the existing ones (upstream ordering)', () => {
    const out = smp(node(), { status: { conditions: [{ type: 'DiskPressure', status: 'False' }] } });
    assert.deepEqual(
      (get(out, 'status', 'conditions') as JsonObject[]).map((c) => c['type']),
      ['DiskPressure', 'Ready', 'MemoryPressure'],
    );
  });

  it('places a new condition where $setElementOrder says', () => {
    const out = smp(node(), {
      status: {
        '$setElementOrder/conditions': [{ type: 'Ready' }, { type: 'MemoryPressure' }, { type: 'DiskPressure' }],
        conditions: [{ type: 'DiskPressure', status: 'False' }],
      },
    });
    assert.deepEqual(
      (get(out, 'status', 'conditions') as JsonObject[]).map((c) => c['type']),
      ['Ready', 'MemoryPressure', 'DiskPressure'],
    );
  });

  it('reorders conditions with $setElementOrder alone', () => {
    const out = smp(node(), {
      status: { '$setElementOrder/conditions': [{ type: 'MemoryPressure' }, { type: 'Ready' }] },
    });
    assert.deepEqual(
      (get(out, 'status', 'conditions') as JsonObject[]).map((c) => c['type']),
      ['MemoryPressure', 'Ready'],
    );
  });

  it('interleaves server-only elements by their original position', () => {
    const doc = { status: { conditions: [{ type: 'A' }, { type: 'B' }, { type: 'C' }] } };
    const out = smp(doc, { status: { '$setElementOrder/conditions': [{ type: 'C' }, { type: 'A' }] } });
    assert.deepEqual(
      (get(out, 'status', 'conditions') as JsonObject[]).map((c) => c['type']),
      ['B', 'C', 'A'],
    );
    const out2 = smp(doc, { status: { '$setElementOrder/conditions': [{ type: 'A' }, { type: 'C' }] } });
    assert.deepEqual(
      (get(out2, 'status', 'conditions') as JsonObject[]).map((c) => c['type']),
      ['A', 'B', 'C'],
    );
  });

  it('deletes a condition with "$patch: delete"', () => {
    const out = smp(node(), { status: { conditions: [{ type: 'Ready', $patch: 'delete' }] } });
    assert.deepEqual(get(out, 'status', 'conditions'), [
      { type: 'MemoryPressure', status: 'False', reason: 'KubeletHasSufficientMemory' },
    ]);
  });

  it('deletes, updates and orders in one patch (kubectl edit shape)', () => {
    const out = smp(node(), {
      status: {
        '$setElementOrder/addresses': [{ type: 'Hostname' }, { type: 'ExternalIP' }],
        addresses: [
          { type: 'ExternalIP', address: '1.2.3.4' },
          { type: 'InternalIP', $patch: 'delete' },
        ],
      },
    });
    assert.deepEqual(get(out, 'status', 'addresses'), [
      { type: 'Hostname', address: 'node-1' },
      { type: 'ExternalIP', address: '1.2.3.4' },
    ]);
  });

  it('"$patch: replace" element replaces the whole list', () => {
    const out = smp(node(), { status: { conditions: [{ type: 'Ready', status: 'Unknown' }, { $patch: 'replace' }] } });
    assert.deepEqual(get(out, 'status', 'conditions'), [{ type: 'Ready', status: 'Unknown' }]);
  });

  it('"$patch: merge" element merges like an ordinary one', () => {
    const out = smp(node(), { status: { conditions: [{ type: 'Ready', status: 'False', $patch: 'merge' }] } });
    assert.deepEqual((get(out, 'status', 'conditions') as JsonObject[])[0], {
      type: 'Ready',
      status: 'False',
      reason: 'KubeletReady',
    });
  });

  it('patch elements with the same key merge into one element', () => {
    const out = smp(
      { status: {} },
      {
        status: {
          conditions: [
            { type: 'X', a: 1 },
            { type: 'X', b: 2 },
          ],
        },
      },
    );
    assert.deepEqual(out, { status: { conditions: [{ type: 'X', a: 1, b: 2 }] } });
  });

  it('merges ownerReferences by uid', () => {
    const out = smp(node(), { metadata: { ownerReferences: [{ uid: 'u2', name: 'renamed' }] } });
    assert.deepEqual(get(out, 'metadata', 'ownerReferences'), [
      { apiVersion: 'v1', kind: 'X', name: 'one', uid: 'u1' },
      { apiVersion: 'v1', kind: 'X', name: 'renamed', uid: 'u2' },
    ]);
  });

  it('merges Pod containers by name and their env/ports by name/containerPort', () => {
    const pod: JsonObject = {
      metadata: { name: 'p' },
      spec: {
        containers: [
          {
            name: 'app',
            image: 'app:1',
            env: [
              { name: 'A', value: '1' },
              { name: 'B', value: '2' },
            ],
            ports: [{ containerPort: 80, protocol: 'TCP' }],
          },
          { name: 'sidecar', image: 'side:1' },
        ],
        tolerations: [{ key: 'a', operator: 'Exists' }],
      },
    };
    const out = smp(
      pod,
      {
        spec: {
          containers: [
            {
              name: 'app',
              image: 'app:2',
              env: [{ name: 'B', value: '3' }],
              ports: [{ containerPort: 80, name: 'http' }],
            },
          ],
          tolerations: [{ key: 'b', operator: 'Exists' }],
        },
      },
      'Pod',
    );
    assert.deepEqual(get(out, 'spec', 'containers'), [
      {
        name: 'app',
        image: 'app:2',
        env: [
          { name: 'A', value: '1' },
          { name: 'B', value: '3' },
        ],
        ports: [{ containerPort: 80, protocol: 'TCP', name: 'http' }],
      },
      { name: 'sidecar', image: 'side:1' },
    ]);
    assert.deepEqual(get(out, 'spec', 'tolerations'), [{ key: 'b', operator: 'Exists' }]);
  });

  it('merges into a missing list', () => {
    const out = smp(
      { status: {} },
      {
        status: {
          conditions: [
            { type: 'Ready', status: 'True' },
            { type: 'Gone', $patch: 'delete' },
          ],
        },
      },
    );
    assert.deepEqual(out, { status: { conditions: [{ type: 'Ready', status: 'True' }] } });
  });

  it('deleting a list with null wins over ordering hints', () => {
    const out = smp(node(), { status: { '$setElementOrder/conditions': [{ type: 'Ready' }], conditions: null } });
    assert.equal(get(out, 'status', 'conditions'), undefined);
  });
});

describe('replaced lists', () => {
  it('replaces taints (no patch strategy)', () => {
    const out = smp(node(), { spec: { taints: [{ key: 'other', effect: 'NoExecute' }] } });
    assert.deepEqual(get(out, 'spec', 'taints'), [{ key: 'other', effect: 'NoExecute' }]);
  });

  it('replaces status.images (atomic)', () => {
    const out = smp(node(), { status: { images: [{ names: ['b:2'], sizeBytes: 2 }] } });
    assert.deepEqual(get(out, 'status', 'images'), [{ names: ['b:2'], sizeBytes: 2 }]);
  });

  it('replaces every list of a kind without a schema, even conditions', () => {
    const doc = {
      status: {
        conditions: [
          { type: 'Ready', status: 'True' },
          { type: 'Other', status: 'True' },
        ],
      },
    };
    const out = smp(doc, { status: { conditions: [{ type: 'Ready', status: 'False' }] } }, 'Widget');
    assert.deepEqual(out, { status: { conditions: [{ type: 'Ready', status: 'False' }] } });
  });

  it('ignores $setElementOrder for a list that is not a merge list', () => {
    const out = smp(node(), {
      spec: { '$setElementOrder/taints': [{ key: 'x' }], taints: [{ key: 'x', effect: 'NoSchedule' }] },
    });
    assert.deepEqual(get(out, 'spec', 'taints'), [{ key: 'x', effect: 'NoSchedule' }]);
    assert.ok(!Object.keys(get(out, 'spec') as JsonObject).some((k) => k.startsWith('$')));
  });

  it('cleans directives out of replaced lists', () => {
    const out = smp(
      { l: [1] },
      {
        l: [{ a: 1, b: null }, { $patch: 'delete', a: 2 }, { $patch: 'replace', c: 3 }, [{ $retainKeys: ['d'], d: 4 }]],
      },
      'Thing',
    );
    assert.deepEqual(out, { l: [{ a: 1 }, { c: 3 }, [{ d: 4 }]] });
  });
});

describe('directive keys never reach the result', () => {
  const directive = /^\$(patch|retainKeys|setElementOrder|deleteFromPrimitiveList)/;
  function assertClean(v: JsonValue): void {
    if (Array.isArray(v)) v.forEach(assertClean);
    else if (v !== null && typeof v === 'object') {
      for (const [k, c] of Object.entries(v)) {
        assert.doesNotMatch(k, directive, `directive key ${k} left in result`);
        assertClean(c);
      }
    }
  }

  it('in new subtrees, merge lists and nested maps', () => {
    const out = smp(
      { metadata: { name: 'n' } },
      {
        metadata: { labels: { $patch: 'merge', a: 'b' }, '$setElementOrder/finalizers': ['x'], finalizers: ['x'] },
        spec: {
          '$deleteFromPrimitiveList/podCIDRs': ['a'],
          '$setElementOrder/podCIDRs': ['b'],
          podCIDRs: ['b'],
          configSource: { $retainKeys: ['configMap'], configMap: { name: 'c' } },
        },
        status: {
          conditions: [
            { type: 'A', $patch: 'merge', nested: { $patch: 'replace', z: 1 } },
            { type: 'B', $patch: 'delete' },
          ],
        },
      },
    );
    assertClean(out);
    assert.deepEqual(out, {
      metadata: { name: 'n', labels: { a: 'b' }, finalizers: ['x'] },
      spec: { podCIDRs: ['b'], configSource: { configMap: { name: 'c' } } },
      status: { conditions: [{ type: 'A', nested: { z: 1 } }] },
    });
  });
});

describe('malformed strategic patches', () => {
  it('rejects non-object bodies', () => {
    for (const body of [[], [{ op: 'add' }], 'x', 1, null, true]) {
      throwsPatch(() => smp(node(), body), 'DKC_PATCH_INVALID', /must be a JSON object/);
    }
  });

  it('rejects unknown $patch values on maps and list elements', () => {
    throwsPatch(() => smp(node(), { spec: { $patch: 'remove' } }), 'DKC_PATCH_INVALID', /unknown patch type: "remove"/);
    throwsPatch(() => smp(node(), { spec: { $patch: 1 } }), 'DKC_PATCH_INVALID', /unknown patch type/);
    throwsPatch(
      () => smp(node(), { status: { conditions: [{ type: 'Ready', $patch: 'nuke' }] } }),
      'DKC_PATCH_INVALID',
      /unknown patch type/,
    );
    throwsPatch(
      () => smp(node(), { spec: { podCIDRs: [{ $patch: 'nuke' }] } }),
      'DKC_PATCH_INVALID',
      /unknown patch type/,
    );
  });

  it('rejects merge-list elements without the merge key', () => {
    throwsPatch(
      () => smp(node(), { status: { conditions: [{ status: 'True' }] } }),
      'DKC_PATCH_INVALID',
      /does not contain declared merge key: type/,
    );
    throwsPatch(
      () => smp(node(), { status: { conditions: [{ $patch: 'delete' }] } }),
      'DKC_PATCH_INVALID',
      /merge key: type/,
    );
    throwsPatch(
      () => smp(node(), { metadata: { ownerReferences: [{ name: 'x' }] } }),
      'DKC_PATCH_INVALID',
      /merge key: uid/,
    );
  });

  it('rejects elements of the wrong kind in merge lists', () => {
    throwsPatch(() => smp(node(), { status: { conditions: ['Ready'] } }), 'DKC_PATCH_INVALID');
    throwsPatch(() => smp(node(), { spec: { podCIDRs: [{ cidr: 'x' }] } }), 'DKC_PATCH_INVALID');
    throwsPatch(
      () => smp(node(), { spec: { podCIDRs: [{ $patch: 'delete' }] } }),
      'DKC_PATCH_INVALID',
      /deleteFromPrimitiveList/,
    );
    throwsPatch(() => smp(node(), { spec: { podCIDRs: [['x']] } }), 'DKC_PATCH_CONFLICT', /lists of lists/);
    throwsPatch(
      () => smp(node(), { status: { conditions: [[{ type: 'x' }]] } }),
      'DKC_PATCH_CONFLICT',
      /lists of lists/,
    );
  });

  it('reports a merge list whose stored elements do not fit as a conflict', () => {
    throwsPatch(
      () => smp({ status: { conditions: ['Ready'] } }, { status: { conditions: [{ type: 'Ready' }] } }),
      'DKC_PATCH_CONFLICT',
    );
    throwsPatch(() => smp({ spec: { podCIDRs: [{ a: 1 }] } }, { spec: { podCIDRs: ['x'] } }), 'DKC_PATCH_CONFLICT');
  });

  it('rejects bad $setElementOrder lists', () => {
    throwsPatch(
      () => smp(node(), { spec: { '$setElementOrder/podCIDRs': 'a' } }),
      'DKC_PATCH_INVALID',
      /setElementOrder/,
    );
    throwsPatch(() => smp(node(), { spec: { '$setElementOrder/taints': {} } }), 'DKC_PATCH_INVALID', /setElementOrder/);
    throwsPatch(
      () => smp(node(), { status: { '$setElementOrder/conditions': [{ status: 'x' }] } }),
      'DKC_PATCH_INVALID',
      /merge key: type/,
    );
    throwsPatch(() => smp(node(), { spec: { '$setElementOrder/podCIDRs': [{ a: 1 }] } }), 'DKC_PATCH_INVALID');
    throwsPatch(
      () => smp(node(), { spec: { '$setElementOrder/podCIDRs': ['a'], podCIDRs: ['b'] } }),
      'DKC_PATCH_INVALID',
      /doesn't match \$setElementOrder\/podCIDRs list/,
    );
    throwsPatch(
      () => smp(node(), { spec: { '$setElementOrder/podCIDRs': ['a', 'b'], podCIDRs: ['b', 'a'] } }),
      'DKC_PATCH_INVALID',
      /doesn't match/,
    );
    throwsPatch(
      () => smp(node(), { spec: { '$setElementOrder/podCIDRs': ['a'], podCIDRs: 'a' } }),
      'DKC_PATCH_INVALID',
    );
  });

  it('rejects malformed directive keys', () => {
    throwsPatch(
      () => smp(node(), { spec: { $setElementOrder: ['a'] } }),
      'DKC_PATCH_INVALID',
      /malformed directive key/,
    );
    throwsPatch(() => smp(node(), { spec: { '$setElementOrder/': ['a'] } }), 'DKC_PATCH_INVALID');
    throwsPatch(() => smp(node(), { spec: { $deleteFromPrimitiveListpodCIDRs: ['a'] } }), 'DKC_PATCH_INVALID');
  });

  it('rejects bad $deleteFromPrimitiveList values', () => {
    throwsPatch(
      () => smp(node(), { metadata: { '$deleteFromPrimitiveList/finalizers': 'a' } }),
      'DKC_PATCH_INVALID',
      /primitive list/,
    );
    throwsPatch(
      () => smp(node(), { metadata: { '$deleteFromPrimitiveList/finalizers': [{ a: 1 }] } }),
      'DKC_PATCH_INVALID',
      /primitive list/,
    );
  });

  it('rejects non-JSON values and excessive nesting', () => {
    throwsPatch(() => applyStrategicMergePatch(node(), { a: undefined }, 'Node'), 'DKC_PATCH_INVALID');
    throwsPatch(() => applyStrategicMergePatch(node(), { a: Number.NaN }, 'Node'), 'DKC_PATCH_INVALID');
    throwsPatch(() => applyStrategicMergePatch(node(), { a: new Date() }, 'Node'), 'DKC_PATCH_INVALID');
    throwsPatch(() => applyStrategicMergePatch(node(), { a: () => 1 }, 'Node'), 'DKC_PATCH_INVALID');
    throwsPatch(() => applyStrategicMergePatch(node(), { a: 1n }, 'Node'), 'DKC_PATCH_INVALID');
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    throwsPatch(() => applyStrategicMergePatch(node(), cyclic, 'Node'), 'DKC_PATCH_INVALID', /deeper than 100/);
    let deep: JsonValue = {};
    for (let i = 1; i < MAX_DEPTH; i++) deep = { d: deep };
    assert.ok(applyStrategicMergePatch({}, deep, 'Node'));
    throwsPatch(() => applyStrategicMergePatch({}, { d: deep }, 'Node'), 'DKC_PATCH_INVALID', /deeper than 100/);
    throwsPatch(() => applyStrategicMergePatch({ d: deep }, {}, 'Node'), 'DKC_PATCH_INVALID', /object being patched/);
  });

  it('reports a throwing getter as a PatchError', () => {
    const hostile = Object.defineProperty({}, 'x', {
      enumerable: true,
      get: () => {
        throw new Error('boom');
      },
    });
    throwsPatch(() => applyStrategicMergePatch(node(), hostile, 'Node'), 'DKC_PATCH_INVALID', /could not be read/);
  });
});

describe('schema and entry point', () => {
  it('knows the merge lists of the served kinds', () => {
    assert.equal(patchMetaForKind('Node')?.fields?.['spec']?.fields?.['podCIDRs']?.listStrategy, 'merge');
    assert.equal(patchMetaForKind('Node')?.fields?.['status']?.fields?.['conditions']?.mergeKey, 'type');
    assert.equal(patchMetaForKind('Node')?.fields?.['spec']?.fields?.['taints'], undefined);
    assert.equal(patchMetaForKind('Lease')?.fields?.['metadata']?.fields?.['ownerReferences']?.mergeKey, 'uid');
    assert.equal(patchMetaForKind('toString'), undefined);
    assert.equal(patchMetaForKind('Widget'), undefined);
  });

  it('accepts explicit metadata', () => {
    const meta = { fields: { items: { listStrategy: 'merge' as const, mergeKey: 'id' } } };
    const out = applyStrategicMergePatchWithMeta(
      {
        items: [
          { id: 1, v: 'a' },
          { id: 2, v: 'b' },
        ],
      },
      { items: [{ id: 2, v: 'c' }] },
      meta,
    );
    assert.deepEqual(out, {
      items: [
        { id: 1, v: 'a' },
        { id: 2, v: 'c' },
      ],
    });
  });

  it('applyPatch dispatches by content type', () => {
    const doc = { spec: { podCIDRs: ['a'] } };
    assert.deepEqual(applyPatch('strategic', doc, { spec: { podCIDRs: ['b'] } }, 'Node'), {
      spec: { podCIDRs: ['b', 'a'] },
    });
    assert.deepEqual(applyPatch('merge', doc, { spec: { podCIDRs: ['b'] } }, 'Node'), { spec: { podCIDRs: ['b'] } });
    assert.deepEqual(applyPatch('json', doc, [{ op: 'add', path: '/spec/podCIDRs/-', value: 'b' }], 'Node'), {
      spec: { podCIDRs: ['a', 'b'] },
    });
    throwsPatch(() => applyPatch('apply', doc, {}, 'Node'), 'DKC_PATCH_INVALID', /unsupported patch type/);
  });

  it('never mutates inputs, even through merge lists and fresh values', () => {
    const doc = node();
    const patch = {
      metadata: { labels: { tier: null }, finalizers: ['z'] },
      spec: {
        '$setElementOrder/podCIDRs': ['fd00::/64', '10.244.0.0/24'],
        podCIDRs: ['fd00::/64'],
        taints: [{ key: 'k' }],
      },
      status: {
        conditions: [
          { type: 'Ready', status: 'False' },
          { type: 'MemoryPressure', $patch: 'delete' },
        ],
        newMap: { a: { b: 1 } },
      },
    };
    const docCopy = structuredClone(doc);
    const patchCopy = structuredClone(patch);
    const out = applyStrategicMergePatch(doc, patch, 'Node');
    assert.deepEqual(doc, docCopy);
    assert.deepEqual(patch, patchCopy);
    // Mutating the result does not reach back into either input.
    (get(out, 'status', 'newMap', 'a') as JsonObject)['b'] = 2;
    (get(out, 'spec', 'taints') as JsonObject[]).push({ key: 'j' });
    assert.deepEqual(doc, docCopy);
    assert.deepEqual(patch, patchCopy);
  });
});
