import { test, describe } from 'node:test';
import assert from 'node:assert/strict';

import type { ConfigMap } from '../../../src/api/types.js';
import { validateConfigMap, validateCreate, validateUpdate } from '../../../src/api/validation/index.js';
import { CONFIG_KEY_MSG, SUBDOMAIN_MSG, invalidMessage, strings } from './messages.js';

function cm(extra: Partial<ConfigMap> = {}): ConfigMap {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'kube-system' }, ...extra };
}

function createMessage(obj: ConfigMap): string {
  const errs = validateCreate('ConfigMap', obj);
  return errs.length ? invalidMessage('ConfigMap', obj.metadata.name ?? '', errs) : '';
}

describe('ConfigMap create', () => {
  test('a typical kubelet config map is valid', () => {
    assert.equal(
      createMessage(
        cm({ data: { kubelet: 'kind: KubeletConfiguration\n', 'a.b_C-1': '' }, binaryData: { bin: 'AAEC' } }),
      ),
      '',
    );
  });

  test('name must be a DNS-1123 subdomain', () => {
    assert.equal(
      createMessage(cm({ metadata: { name: '../bar', namespace: 'kube-system' } })),
      `ConfigMap "../bar" is invalid: metadata.name: Invalid value: "../bar": ${SUBDOMAIN_MSG}`,
    );
  });

  test('namespace is required for a namespaced kind', () => {
    assert.equal(
      createMessage(cm({ metadata: { name: 'c' } })),
      'ConfigMap "c" is invalid: metadata.namespace: Required value',
    );
  });

  test('data key ../qux: two messages at data[../qux]', () => {
    assert.equal(
      createMessage(cm({ data: { '../qux': 'x' } })),
      `ConfigMap "c" is invalid: [data[../qux]: Invalid value: "../qux": ${CONFIG_KEY_MSG}, data[../qux]: Invalid value: "../qux": must not start with '..']`,
    );
  });

  test("keys '.' and '..' and '..x'", () => {
    assert.deepEqual(strings(validateConfigMap(cm({ data: { '.': '', '..': '', '..x': '' } }))), [
      `data[.]: Invalid value: ".": must not be '.'`,
      `data[..]: Invalid value: "..": must not be '..'`,
      `data[..x]: Invalid value: "..x": must not start with '..'`,
    ]);
  });

  test('binaryData keys are checked at binaryData[key]', () => {
    assert.deepEqual(strings(validateConfigMap(cm({ binaryData: { 'a b': 'AA==' } }))), [
      `binaryData[a b]: Invalid value: "a b": ${CONFIG_KEY_MSG}`,
    ]);
  });

  test('a key longer than 253 characters', () => {
    const key = 'k'.repeat(254);
    assert.deepEqual(strings(validateConfigMap(cm({ data: { [key]: '' } }))), [
      `data[${key}]: Invalid value: "${key}": must be no more than 253 characters`,
    ]);
  });

  test('a key present in both data and binaryData', () => {
    assert.equal(
      createMessage(cm({ data: { key: 'a' }, binaryData: { key: 'YQ==' } })),
      'ConfigMap "c" is invalid: data[key]: Invalid value: "key": duplicate of key present in binaryData',
    );
  });

  test('payload of exactly 1 MiB is accepted; one byte more is too long (path [])', () => {
    const limit = 1048576;
    assert.equal(createMessage(cm({ data: { a: 'x'.repeat(limit) } })), '');
    assert.equal(
      createMessage(cm({ data: { a: 'x'.repeat(limit + 1) } })),
      'ConfigMap "c" is invalid: []: Too long: must have at most 1048576 bytes',
    );
  });

  test('size sums data and decoded binaryData values (keys are not counted)', () => {
    const half = 524288;
    const bin = Buffer.alloc(half, 7).toString('base64');
    assert.equal(createMessage(cm({ data: { a: 'x'.repeat(half) }, binaryData: { b: bin } })), '');
    const binPlus = Buffer.alloc(half + 1, 7).toString('base64');
    const errs = validateCreate('ConfigMap', cm({ data: { a: 'x'.repeat(half) }, binaryData: { b: binPlus } }));
    assert.deepEqual(
      errs.map((e) => [e.field, e.body()]),
      [['[]', 'Too long: must have at most 1048576 bytes']],
    );
  });

  test('multi-byte characters count in UTF-8 bytes', () => {
    // 'é' is two bytes: 524289 of them exceed 1 MiB though the string length does not.
    assert.equal(
      createMessage(cm({ data: { a: 'é'.repeat(524289) } })),
      'ConfigMap "c" is invalid: []: Too long: must have at most 1048576 bytes',
    );
  });
});

describe('ConfigMap update', () => {
  const stored = (extra: Partial<ConfigMap> = {}): ConfigMap =>
    cm({ metadata: { name: 'c', namespace: 'kube-system', uid: 'u', resourceVersion: '3' }, ...extra });

  function updateMessage(next: ConfigMap, old: ConfigMap): string {
    const errs = validateUpdate('ConfigMap', next, old);
    return errs.length ? invalidMessage('ConfigMap', 'c', errs) : '';
  }

  test('a mutable config map may change', () => {
    assert.equal(updateMessage(stored({ data: { a: '2' } }), stored({ data: { a: '1' } })), '');
  });

  test('becoming immutable is allowed', () => {
    assert.equal(updateMessage(stored({ data: { a: '1' }, immutable: true }), stored({ data: { a: '1' } })), '');
  });

  test('an immutable config map with unchanged content may be updated (e.g. labels)', () => {
    const old = stored({ data: { a: '1' }, immutable: true });
    const next = stored({ data: { a: '1' }, immutable: true });
    next.metadata.labels = { x: 'y' };
    assert.equal(updateMessage(next, old), '');
  });

  test('data of an immutable config map cannot change', () => {
    assert.equal(
      updateMessage(stored({ data: { a: '2' }, immutable: true }), stored({ data: { a: '1' }, immutable: true })),
      'ConfigMap "c" is invalid: data: Forbidden: field is immutable when `immutable` is set',
    );
  });

  test('binaryData of an immutable config map cannot change', () => {
    assert.equal(
      updateMessage(
        stored({ binaryData: { b: 'AQ==' }, immutable: true }),
        stored({ binaryData: { b: 'AA==' }, immutable: true }),
      ),
      'ConfigMap "c" is invalid: binaryData: Forbidden: field is immutable when `immutable` is set',
    );
  });

  test('immutable cannot be unset; all three errors aggregate in order', () => {
    assert.equal(
      updateMessage(
        stored({ data: { a: '2' }, binaryData: {} }),
        stored({ data: { a: '1' }, binaryData: { b: 'AA==' }, immutable: true }),
      ),
      'ConfigMap "c" is invalid: [immutable: Forbidden: field is immutable when `immutable` is set, data: Forbidden: field is immutable when `immutable` is set, binaryData: Forbidden: field is immutable when `immutable` is set]',
    );
    assert.equal(
      updateMessage(stored({ data: { a: '1' }, immutable: false }), stored({ data: { a: '1' }, immutable: true })),
      'ConfigMap "c" is invalid: immutable: Forbidden: field is immutable when `immutable` is set',
    );
  });

  test('absent and empty data are the same content', () => {
    assert.equal(updateMessage(stored({ data: {}, immutable: true }), stored({ immutable: true })), '');
  });

  test('key rules still apply on update', () => {
    assert.equal(
      updateMessage(stored({ data: { '..': 'x' } }), stored()),
      `ConfigMap "c" is invalid: data[..]: Invalid value: "..": must not be '..'`,
    );
  });
});
