import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  chooseKey,
  ConfigCommandError,
  parseSource,
  sourceName,
  valueText,
  diffLines,
  lintLines,
} from '../../../src/workflow/config/index.js';

test('sources: ConfigMaps with and without a key, nodes, files', () => {
  assert.deepEqual(parseSource('cm/kube-system/base'), { kind: 'configmap', namespace: 'kube-system', name: 'base' });
  assert.deepEqual(parseSource('configmap/ns/x:config.yaml'), {
    kind: 'configmap',
    namespace: 'ns',
    name: 'x',
    key: 'config.yaml',
  });
  assert.deepEqual(parseSource('node/node-1'), { kind: 'node', name: 'node-1' });
  assert.deepEqual(parseSource('./cm/a/b'), { kind: 'file', path: './cm/a/b' });
  assert.deepEqual(parseSource('kubelet.yaml'), { kind: 'file', path: 'kubelet.yaml' });
  for (const bad of ['cm/onlyname', 'cm/a/b/c', 'cm//b', 'cm/a/b:', 'node/', 'node/a/b', '']) {
    assert.throws(
      () => parseSource(bad),
      (e: unknown) => e instanceof ConfigCommandError && e.code === 'DKC_CONFIG_INVALID_SOURCE',
      bad,
    );
  }
  assert.equal(sourceName(parseSource('cm/ns/x')), 'cm/ns/x:kubelet');
});

test('a ConfigMap key: the one named, else kubelet, else the only one', () => {
  const ref = { kind: 'configmap', namespace: 'ns', name: 'x' } as const;
  assert.equal(chooseKey({ data: { kubelet: 'a', other: 'b' } }, ref).key, 'kubelet');
  assert.equal(chooseKey({ data: { 'config.yaml': 'a' } }, ref).key, 'config.yaml');
  assert.equal(chooseKey({ data: { a: '1', b: '2' } }, { ...ref, key: 'b' }).bytes, '2');
  assert.equal(
    Buffer.from(chooseKey({ binaryData: { kubelet: Buffer.from('hi').toString('base64') } }, ref).bytes).toString(),
    'hi',
  );
  assert.throws(() => chooseKey({ data: { a: '1', b: '2' } }, ref), /has several keys \(a, b\) and none is "kubelet"/);
  assert.throws(
    () => chooseKey({ data: { a: '1' } }, { ...ref, key: 'z' }),
    /configmap ns\/x has no key "z" \(it has: a\)/,
  );
  assert.throws(() => chooseKey({}, ref), /has no key "kubelet" \(it has no data\)/);
});

test('values print in YAML flow form, quoted only where YAML would read them otherwise', () => {
  assert.equal(valueText(110), '110');
  assert.equal(valueText('100Mi'), '100Mi');
  assert.equal(valueText('10%'), '10%');
  assert.equal(valueText('1m0s'), '1m0s');
  assert.equal(valueText(''), '""');
  assert.equal(valueText('true'), '"true"');
  assert.equal(valueText('10'), '"10"');
  assert.equal(valueText('0.5'), '"0.5"');
  assert.equal(valueText('a: b'), '"a: b"');
  assert.equal(valueText(['10.0.0.10']), '["10.0.0.10"]');
  assert.equal(valueText({}), '{}');
});

test('diff lines are coloured only on a terminal; lint lines carry the class and reason', () => {
  const changes = [
    { path: 'maxPods', keys: ['maxPods'], old: 110, new: 50 },
    { path: 'clusterDNS', keys: ['clusterDNS'], new: ['a'] },
  ];
  assert.deepEqual(diffLines(changes, false), ['- maxPods: 110', '+ maxPods: 50', '+ clusterDNS: ["a"]']);
  assert.deepEqual(diffLines(changes, true), [
    '\u001b[31m- maxPods: 110\u001b[0m',
    '\u001b[32m+ maxPods: 50\u001b[0m',
    '\u001b[32m+ clusterDNS: ["a"]\u001b[0m',
  ]);
  assert.deepEqual(
    lintLines(
      [
        { ...changes[0]!, class: 'safe', reason: 'why' },
        { path: 'x', keys: ['x'], old: 1 },
      ],
      false,
    ),
    ['safe       maxPods: 110 -> 50  (why)', '?          x: 1 -> (unset)  (not a v1beta1 field)'],
  );
});
