import { test, describe } from 'node:test';
import assert from 'node:assert/strict';

import {
  isConfigMapKey,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  isValidPathSegmentName,
  nameIsDNSLabel,
  nameIsDNSSubdomain,
  regexError,
} from '../../../src/api/validation/index.js';
import { CONFIG_KEY_MSG, LABEL_MSG, LABEL_VALUE_MSG, QNAME_MSG, SUBDOMAIN_MSG } from './messages.js';

describe('regexError', () => {
  test('no examples', () => {
    assert.equal(regexError('bad', 'x+'), "bad (regex used for validation is 'x+')");
  });
  test("examples carry upstream's doubled space before 'or'", () => {
    assert.equal(regexError('bad', 'x+', 'a', 'b'), "bad (e.g. 'a',  or 'b', regex used for validation is 'x+')");
  });
});

describe('IsDNS1123Label', () => {
  for (const ok of ['a', 'abc', 'a-b', '0', '123-abc', 'a'.repeat(63)]) {
    test(`valid: ${ok.slice(0, 20)}`, () => assert.deepEqual(isDNS1123Label(ok), []));
  }
  for (const bad of ['', 'A', 'a.b', '-a', 'a-', 'a_b', '../baz']) {
    test(`invalid: ${JSON.stringify(bad)}`, () => assert.deepEqual(isDNS1123Label(bad), [LABEL_MSG]));
  }
  test('too long and well-formed', () =>
    assert.deepEqual(isDNS1123Label('a'.repeat(64)), ['must be no more than 63 characters']));
  test('too long and malformed', () =>
    assert.deepEqual(isDNS1123Label('A'.repeat(64)), ['must be no more than 63 characters', LABEL_MSG]));
});

describe('IsDNS1123Subdomain', () => {
  for (const ok of ['a', 'example.com', 'a-b.c-d', '1.2.3', 'a'.repeat(253)]) {
    test(`valid: ${ok.slice(0, 20)}`, () => assert.deepEqual(isDNS1123Subdomain(ok), []));
  }
  for (const bad of ['', 'A.b', 'a..b', '.a', 'a.', 'a_b', '../bar', 'a/b']) {
    test(`invalid: ${JSON.stringify(bad)}`, () => assert.deepEqual(isDNS1123Subdomain(bad), [SUBDOMAIN_MSG]));
  }
  test('254 characters', () =>
    assert.deepEqual(isDNS1123Subdomain('a'.repeat(254)), ['must be no more than 253 characters']));
});

describe('IsQualifiedName', () => {
  for (const ok of ['a', 'A', 'a.b_c-D', 'example.com/MyName', 'k8s.io/x', 'a'.repeat(63)]) {
    test(`valid: ${ok.slice(0, 20)}`, () => assert.deepEqual(isQualifiedName(ok), []));
  }
  test('empty name part', () =>
    assert.deepEqual(isQualifiedName(''), ['name part must be non-empty', `name part ${QNAME_MSG}`]));
  test('bad characters', () => assert.deepEqual(isQualifiedName('a b'), [`name part ${QNAME_MSG}`]));
  test('name part too long', () =>
    assert.deepEqual(isQualifiedName('a'.repeat(64)), ['name part must be no more than 63 characters']));
  test('empty prefix', () => assert.deepEqual(isQualifiedName('/a'), ['prefix part must be non-empty']));
  test('bad prefix', () => assert.deepEqual(isQualifiedName('Example.com/a'), [`prefix part ${SUBDOMAIN_MSG}`]));
  test('empty name after prefix', () =>
    assert.deepEqual(isQualifiedName('example.com/'), ['name part must be non-empty', `name part ${QNAME_MSG}`]));
  test('two slashes', () =>
    assert.deepEqual(isQualifiedName('a/b/c'), [
      `a qualified name ${QNAME_MSG} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ]));
});

describe('IsValidLabelValue', () => {
  for (const ok of ['', 'a', 'MyValue', 'my_value', '12345', 'a.b-c', 'v'.repeat(63)]) {
    test(`valid: ${JSON.stringify(ok.slice(0, 20))}`, () => assert.deepEqual(isValidLabelValue(ok), []));
  }
  for (const bad of ['-a', 'a-', 'a b', 'a/b', '_a']) {
    test(`invalid: ${JSON.stringify(bad)}`, () => assert.deepEqual(isValidLabelValue(bad), [LABEL_VALUE_MSG]));
  }
  test('too long', () => assert.deepEqual(isValidLabelValue('v'.repeat(64)), ['must be no more than 63 characters']));
});

describe('IsConfigMapKey', () => {
  for (const ok of ['kubelet', 'key.name', 'KEY_NAME', 'key-name', '.hidden', 'a..b', '-']) {
    test(`valid: ${ok}`, () => assert.deepEqual(isConfigMapKey(ok), []));
  }
  test('empty', () => assert.deepEqual(isConfigMapKey(''), [CONFIG_KEY_MSG]));
  test('slash', () => assert.deepEqual(isConfigMapKey('a/b'), [CONFIG_KEY_MSG]));
  test('.', () => assert.deepEqual(isConfigMapKey('.'), ["must not be '.'"]));
  test('..', () => assert.deepEqual(isConfigMapKey('..'), ["must not be '..'"]));
  test('..a', () => assert.deepEqual(isConfigMapKey('..a'), ["must not start with '..'"]));
  test('../qux', () => assert.deepEqual(isConfigMapKey('../qux'), [CONFIG_KEY_MSG, "must not start with '..'"]));
  test('254 characters', () =>
    assert.deepEqual(isConfigMapKey('k'.repeat(254)), ['must be no more than 253 characters']));
});

describe('name validators', () => {
  test('generateName may end with a dash', () => {
    assert.deepEqual(nameIsDNSSubdomain('node-', true), []);
    assert.deepEqual(nameIsDNSLabel('ns-', true), []);
    assert.deepEqual(nameIsDNSSubdomain('node-', false), [SUBDOMAIN_MSG]);
  });
  test('path segment names', () => {
    assert.deepEqual(isValidPathSegmentName('.'), ["may not be '.'"]);
    assert.deepEqual(isValidPathSegmentName('..'), ["may not be '..'"]);
    assert.deepEqual(isValidPathSegmentName('a/b%c'), ["may not contain '/'", "may not contain '%'"]);
    assert.deepEqual(isValidPathSegmentName('Any_Thing.ok'), []);
  });
});
