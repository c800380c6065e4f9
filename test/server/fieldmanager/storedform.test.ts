// managedFields in the stored form (src/server/fieldmanager/storedform.ts, ADR 32): what is stored reads back as the
// very entries that were written (JSON text equal) for any object and any sets, including structured-merge-diff's
// golden FieldsV1 data; a subtree that holds every field of the object is written as a shorthand; what the compact
// form cannot give back exactly is stored as it was; objects stored before the form existed read unchanged.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { expandStoredManagedFields, storedManagedFields } from '../../../src/server/fieldmanager/storedform.js';
import { fromFieldsV1, sorted, type FieldSet } from '../../../src/server/fieldmanager/fieldset.js';
import { prng } from '../../helpers/prng.js';

type Json = Record<string, unknown>;

const NODE: Json = {
  apiVersion: 'v1',
  kind: 'Node',
  metadata: {
    name: 'n1',
    labels: { 'kubernetes.io/hostname': 'n1', 'kubernetes.io/os': 'linux' },
    annotations: { 'dkc.io/rollout': 'r1', keep: 'x' },
    uid: 'u',
    creationTimestamp: '2026-11-26T14:47:21Z',
  },
  spec: { configSource: { configMap: { name: 'c', namespace: 'kube-system', kubeletConfigKey: 'kubelet' } } },
  status: {
    conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: '2026-11-26T14:47:25Z' }],
    config: { active: { configMap: { name: 'c', uid: 'x' } } },
  },
};

const ENTRIES = [
  {
    manager: 'dkc-rollout-controller',
    operation: 'Apply',
    apiVersion: 'v1',
    time: '2026-11-26T14:47:25Z',
    fieldsType: 'FieldsV1',
    fieldsV1: {
      'f:metadata': { 'f:annotations': { 'f:dkc.io/rollout': {} } },
      'f:spec': { 'f:configSource': { 'f:configMap': { 'f:kubeletConfigKey': {}, 'f:name': {}, 'f:namespace': {} } } },
    },
  },
  {
    manager: 'dkc',
    operation: 'Update',
    apiVersion: 'v1',
    time: '2026-11-26T14:47:25Z',
    fieldsType: 'FieldsV1',
    fieldsV1: {
      'f:status': {
        'f:conditions': { 'k:{"type":"Ready"}': { 'f:lastHeartbeatTime': {} } },
        'f:config': { '.': {}, 'f:active': { '.': {}, 'f:configMap': { '.': {}, 'f:name': {}, 'f:uid': {} } } },
      },
    },
    subresource: 'status',
  },
];

/**
 * The object as the store keeps it, and as it reads back; read back by the server that just wrote it (given the
 * entries it was stored from) it is the same.
 */
function storeAndRead(obj: Json): { stored: Json; read: Json; bytes: number } {
  const meta = { ...(obj['metadata'] as Json) };
  const stored = { ...obj, metadata: meta };
  meta['managedFields'] = storedManagedFields(stored);
  const text = JSON.stringify(stored);
  const read = JSON.parse(text) as Json;
  expandStoredManagedFields(read);
  const byWriter = JSON.parse(text) as Json;
  const written = (obj['metadata'] as Json)['managedFields'];
  expandStoredManagedFields(byWriter, Array.isArray(written) ? written : undefined);
  assert.equal(JSON.stringify(byWriter), JSON.stringify(read), 'read back by its writer');
  return { stored, read, bytes: Buffer.byteLength(text) };
}

const withEntries = (obj: Json, entries: unknown[]): Json => ({
  ...obj,
  metadata: { ...(obj['metadata'] as Json), managedFields: entries },
});
const managed = (o: Json): unknown => (o['metadata'] as Json)['managedFields'];

describe('managedFields in the stored form', () => {
  it("stores a Node's entries compact, a fully owned subtree as a shorthand, and reads them back exactly", () => {
    const obj = withEntries(NODE, ENTRIES);
    const { stored, read, bytes } = storeAndRead(obj);
    assert.deepEqual(managed(stored), [
      ['dkc-rollout-controller', 'Apply', 'v1', 1795704445, 'metadata(annotations(dkc.io/rollout)),spec*'],
      ['dkc', 'Update', 'v1', 1795704445, 'status(conditions(@type=Ready(lastHeartbeatTime)),config*.)', 'status'],
    ]);
    assert.equal(JSON.stringify(read), JSON.stringify(obj));
    const plain = Buffer.byteLength(JSON.stringify(obj));
    assert.ok(bytes < plain * 0.8, `${bytes} stored bytes against ${plain} in kube's form`);
  });

  it('reads back what it stored for random objects and random sets, against the object or not (2,000 cases)', () => {
    const rand = prng(20261126);
    for (let i = 0; i < 2000; i++) {
      const obj = randomObject(rand, 3);
      const entries = Array.from({ length: 1 + Math.floor(rand() * 3) }, (_, j) => ({
        manager: `m${j}`,
        operation: j === 0 ? 'Apply' : 'Update',
        apiVersion: 'v1',
        time: new Date(Date.UTC(2026, 0, 1) + Math.floor(rand() * 1e9) * 1000).toISOString().replace('.000Z', 'Z'),
        fieldsType: 'FieldsV1',
        fieldsV1: sorted(randomSet(rand, obj, 3)),
      }));
      const full = withEntries(obj, entries);
      const { read } = storeAndRead(full);
      assert.equal(JSON.stringify(read), JSON.stringify(full), `case ${i}`);
    }
  });

  it("reads structured-merge-diff's golden FieldsV1 sets back byte for byte, stored against objects shaped like them", () => {
    for (const text of GOLDEN) {
      const fieldsV1 = sorted(fromFieldsV1(JSON.parse(text))!);
      const entry = { manager: 'm', operation: 'Apply', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1 };
      for (const obj of [{ metadata: { name: 'x' } }, objectShapedLike(fieldsV1)]) {
        const full = withEntries(obj, [entry]);
        const { stored, read } = storeAndRead(full);
        assert.ok(Array.isArray((managed(stored) as unknown[])[0]), 'stored compact');
        assert.equal(JSON.stringify(read), JSON.stringify(full));
      }
    }
  });

  it('keeps an entry as it was when the compact form would not give it back exactly', () => {
    const odd = [
      { ...ENTRIES[0], time: 1795704445 }, // a time that is no string
      { ...ENTRIES[0], fieldsType: 'FieldsV2' },
      { fieldsV1: {}, ...ENTRIES[0] }, // keys not in Go's order
      { ...ENTRIES[0], extra: true },
      'not an entry',
    ];
    const obj = withEntries(NODE, odd);
    const { stored, read } = storeAndRead(obj);
    assert.deepEqual(managed(stored), odd);
    assert.equal(JSON.stringify(read), JSON.stringify(obj));
    // A set out of FieldsV1's order reads back in its own order.
    const unsorted = withEntries(NODE, [
      { ...ENTRIES[0], fieldsV1: { 'f:spec': { 'f:b': {}, 'f:a': {} }, 'f:metadata': {} } },
    ]);
    assert.equal(JSON.stringify(storeAndRead(unsorted).read), JSON.stringify(unsorted));
    // A time of another precision is kept as written, inside the compact form.
    const fine = withEntries(NODE, [{ ...ENTRIES[0], time: '2026-11-26T14:47:25.5Z' }]);
    const again = storeAndRead(fine);
    assert.equal((managed(again.stored) as unknown[][])[0]![3], '2026-11-26T14:47:25.5Z');
    assert.equal(JSON.stringify(again.read), JSON.stringify(fine));
  });

  it('reads an object stored in the plain form (by an older server) unchanged, and one without managedFields', () => {
    for (const obj of [withEntries(NODE, ENTRIES), NODE]) {
      const read = JSON.parse(JSON.stringify(obj)) as Json;
      expandStoredManagedFields(read);
      assert.equal(JSON.stringify(read), JSON.stringify(obj));
    }
  });

  it('says where stored managedFields are corrupt instead of reading them wrong', () => {
    for (const fields of ['status(', 'status)', 'a,,b', 'missing*']) {
      const read = { metadata: { managedFields: [['m', 'Apply', 'v1', 0, fields]] } };
      assert.throws(() => expandStoredManagedFields(read), /stored managedFields are corrupt at offset \d+/);
    }
  });
});

const NAMES = ['a', 'b', '.', '~x', '@y', 'with,comma', 'p(q)', 'star*', 'back\\slash', '', 'é', 'a.b/c'];

function randomObject(rand: () => number, depth: number): Json {
  const out: Json = {};
  const n = Math.floor(rand() * 4);
  for (let i = 0; i < n; i++) {
    const name = NAMES[Math.floor(rand() * NAMES.length)]!;
    const r = rand();
    out[name] = depth > 0 && r < 0.4 ? randomObject(rand, depth - 1) : r < 0.5 ? [1, 'x'] : r < 0.55 ? undefined : 'v';
  }
  return out;
}

/** A set that follows the object where it can (so the shorthand is used) and strays from it at random. */
function randomSet(rand: () => number, value: unknown, depth: number): FieldSet {
  const out: FieldSet = {};
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value as Json)) {
      if (v === undefined || rand() < 0.15) continue;
      out[`f:${k}`] = depth > 0 ? randomSet(rand, v, depth - 1) : {};
    }
    if (rand() < 0.5 && Object.keys(out).length > 0) out['.'] = {};
  }
  const extras = [
    'k:{"type":"Ready"}',
    'k:{"name":"a,b","port":1}',
    'v:"x"',
    'i:2',
    `f:${NAMES[Math.floor(rand() * 9)]}`,
  ];
  if (rand() < 0.3) out[extras[Math.floor(rand() * extras.length)]!] = rand() < 0.5 ? {} : { 'f:a': {} };
  return out;
}

/** An object with a field for every `f:` element of the set, so the shorthand can apply wherever it is whole. */
function objectShapedLike(set: FieldSet): Json {
  const out: Json = {};
  for (const [pe, child] of Object.entries(set)) {
    if (!pe.startsWith('f:')) continue;
    out[pe.slice(2)] = Object.keys(child).some((k) => k.startsWith('f:')) ? objectShapedLike(child) : 'v';
  }
  return out;
}

// sigs.k8s.io/structured-merge-diff fieldpath/serialize_test.go, the same golden data test/server/fieldmanager/fieldsv1.test.ts reads.
const GOLDEN = [
  `{"f:aaa":{},"f:aab":{},"k:{\\"name\\":\\"first\\"}":{},"k:{\\"port\\":443,\\"protocol\\":\\"tcp\\"}":{},"v:1":{},"v:\\"aa\\"":{},"v:true":{},"i:1":{}}`,
  `{"f:aaa":{"k:{\\"name\\":\\"second\\"}":{"v:3":{"f:aab":{}}},"v:3":{},"v:true":{}},"f:aab":{"f:aaa":{},"f:aaf":{"k:{\\"port\\":443,\\"protocol\\":\\"udp\\"}":{"k:{\\"port\\":443,\\"protocol\\":\\"tcp\\"}":{}}},"k:{\\"name\\":\\"first\\"}":{}},"i:1":{"i:3":{"f:aaf":{}}}}`,
  `{"f:spec":{".":{},"f:apps":{".":{},"k:{\\"name\\":\\" app-💻\\"}":{".":{},"f:container":{".":{},"f:image":{},"f:name":{},"f:ports":{".":{},"k:{\\"name\\":\\"port 🔑\\"}":{".":{},"f:containerPort":{},"f:name":{}}}},"f:name":{}}}}}`,
];
