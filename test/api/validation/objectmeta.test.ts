import { test, describe } from 'node:test';
import assert from 'node:assert/strict';

import type { KubeObject } from '../../../src/api/types.js';
import {
  nameIsDNSSubdomain,
  validateCoreObjectMeta,
  validateCreate,
  validateObjectMetaUpdate,
  validateUpdate,
} from '../../../src/api/validation/index.js';
import { LABEL_VALUE_MSG, QNAME_MSG, SUBDOMAIN_MSG, invalidMessage, strings } from './messages.js';

describe('ValidateObjectMeta', () => {
  test('name or generateName is required', () => {
    assert.deepEqual(strings(validateCoreObjectMeta({}, true, nameIsDNSSubdomain)), [
      'metadata.name: Required value: name or generateName is required',
      'metadata.namespace: Required value',
    ]);
  });

  test('bad generateName is reported at metadata.generateName', () => {
    assert.deepEqual(strings(validateCoreObjectMeta({ generateName: 'Bad_', name: 'ok' }, false, nameIsDNSSubdomain)), [
      `metadata.generateName: Invalid value: "Bad_": ${SUBDOMAIN_MSG}`,
    ]);
  });

  test('namespace must be a DNS-1123 label', () => {
    assert.deepEqual(strings(validateCoreObjectMeta({ name: 'a', namespace: 'a.b' }, true, nameIsDNSSubdomain)), [
      `metadata.namespace: Invalid value: "a.b": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
    ]);
  });

  test('labels: bad key and bad value are both reported at metadata.labels', () => {
    const errs = validateCoreObjectMeta(
      { name: 'a', labels: { 'bad key': 'ok', good: 'bad value', 'Example.com/x': '' } },
      false,
      nameIsDNSSubdomain,
    );
    assert.deepEqual(strings(errs), [
      `metadata.labels: Invalid value: "bad key": name part ${QNAME_MSG}`,
      `metadata.labels: Invalid value: "bad value": ${LABEL_VALUE_MSG}`,
      `metadata.labels: Invalid value: "Example.com/x": prefix part ${SUBDOMAIN_MSG}`,
    ]);
  });

  test('a label value longer than 63 characters', () => {
    const v = 'v'.repeat(64);
    assert.equal(
      invalidMessage('Node', 'n1', validateCreate('Node', { metadata: { name: 'n1', labels: { k: v } } })),
      `Node "n1" is invalid: metadata.labels: Invalid value: "${v}": must be no more than 63 characters`,
    );
  });

  test('annotation keys are case-insensitive qualified names', () => {
    assert.deepEqual(
      validateCoreObjectMeta({ name: 'a', annotations: { 'Example.COM/Thing': 'x' } }, false, nameIsDNSSubdomain),
      [],
    );
    assert.deepEqual(
      strings(validateCoreObjectMeta({ name: 'a', annotations: { 'a b': 'x' } }, false, nameIsDNSSubdomain)),
      [`metadata.annotations: Invalid value: "a b": name part ${QNAME_MSG}`],
    );
  });

  test('annotations over 256 KiB in total', () => {
    const meta: { name: string; annotations: Record<string, string> } = {
      name: 'a',
      annotations: { a: 'x'.repeat(262143) },
    };
    assert.deepEqual(validateCoreObjectMeta(meta, false, nameIsDNSSubdomain), []);
    meta.annotations.b = '';
    meta.annotations.a += 'x';
    assert.deepEqual(strings(validateCoreObjectMeta(meta, false, nameIsDNSSubdomain)), [
      'metadata.annotations: Too long: must have at most 262144 bytes',
    ]);
  });

  test('negative generation', () => {
    assert.deepEqual(strings(validateCoreObjectMeta({ name: 'a', generation: -1 }, false, nameIsDNSSubdomain)), [
      'metadata.generation: Invalid value: -1: must be greater than or equal to 0',
    ]);
  });

  test('finalizers: unqualified non-standard names, and orphan with foregroundDeletion', () => {
    assert.deepEqual(
      validateCoreObjectMeta({ name: 'a', finalizers: ['kubernetes', 'example.com/x'] }, false, nameIsDNSSubdomain),
      [],
    );
    assert.deepEqual(strings(validateCoreObjectMeta({ name: 'a', finalizers: ['foo'] }, false, nameIsDNSSubdomain)), [
      'metadata.finalizers: Invalid value: "foo": name is neither a standard finalizer name nor is it fully qualified',
    ]);
    assert.deepEqual(
      strings(
        validateCoreObjectMeta({ name: 'a', finalizers: ['orphan', 'foregroundDeletion'] }, false, nameIsDNSSubdomain),
      ),
      [
        'metadata.finalizers: Invalid value: []string{"orphan", "foregroundDeletion"}: finalizer orphan and foregroundDeletion cannot be both set',
      ],
    );
  });

  test('owner references need apiVersion, kind, name, uid and at most one controller', () => {
    const refs = [
      { apiVersion: '', kind: '', name: '', uid: '' },
      { apiVersion: 'apps/v1', kind: 'A', name: 'x', uid: 'u1', controller: true },
      { apiVersion: 'v1', kind: 'B', name: 'y', uid: 'u2', controller: true },
    ];
    const errs = validateCoreObjectMeta({ name: 'a', ownerReferences: refs }, false, nameIsDNSSubdomain);
    assert.deepEqual(strings(errs).slice(0, 4), [
      'metadata.ownerReferences.apiVersion: Invalid value: "": version must not be empty',
      'metadata.ownerReferences.kind: Invalid value: "": kind must not be empty',
      'metadata.ownerReferences.name: Invalid value: "": name must not be empty',
      'metadata.ownerReferences.uid: Invalid value: "": uid must not be empty',
    ]);
    assert.equal(errs.length, 5);
    assert.ok(
      errs[4]!
        .toString()
        .endsWith('Only one reference can have Controller set to true. Found "true" in references for A/x and B/y'),
    );
  });
});

describe('ValidateObjectMetaUpdate', () => {
  const old = {
    name: 'a',
    namespace: 'ns',
    uid: 'u1',
    resourceVersion: '4',
    generation: 2,
    creationTimestamp: '2024-01-01T00:00:00Z',
  };

  test('unchanged metadata passes', () => {
    assert.deepEqual(validateObjectMetaUpdate({ ...old }, old), []);
  });

  test('name, namespace, uid are immutable', () => {
    assert.deepEqual(strings(validateObjectMetaUpdate({ ...old, name: 'b', namespace: 'other', uid: 'u2' }, old)), [
      'metadata.name: Invalid value: "b": field is immutable',
      'metadata.namespace: Invalid value: "other": field is immutable',
      'metadata.uid: Invalid value: "u2": field is immutable',
    ]);
  });

  test('creationTimestamp is immutable (printed as Go prints a time)', () => {
    assert.deepEqual(strings(validateObjectMetaUpdate({ ...old, creationTimestamp: '2024-01-02T03:04:05Z' }, old)), [
      'metadata.creationTimestamp: Invalid value: 2024-01-02 03:04:05 +0000 UTC: field is immutable',
    ]);
    // The same instant written differently is not a change.
    assert.deepEqual(validateObjectMetaUpdate({ ...old, creationTimestamp: '2024-01-01T01:00:00+01:00' }, old), []);
  });

  test('deletionTimestamp cannot be set or changed by an update', () => {
    assert.deepEqual(strings(validateObjectMetaUpdate({ ...old, deletionTimestamp: '2024-05-01T00:00:00Z' }, old)), [
      'metadata.deletionTimestamp: Invalid value: 2024-05-01 00:00:00 +0000 UTC: field is immutable',
    ]);
  });

  test('no new finalizers while deleting', () => {
    const deleting = { ...old, deletionTimestamp: '2024-05-01T00:00:00Z', finalizers: ['a.io/x'] };
    assert.deepEqual(
      strings(validateObjectMetaUpdate({ ...deleting, finalizers: ['a.io/x', 'b.io/z', 'a.io/y'] }, deleting)),
      [
        'metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"a.io/y", "b.io/z"}',
      ],
    );
  });

  test('resourceVersion must be specified; generation must not go down', () => {
    assert.deepEqual(strings(validateObjectMetaUpdate({ ...old, resourceVersion: '', generation: 1 }, old)), [
      'metadata.resourceVersion: Invalid value: "": must be specified for an update',
      'metadata.generation: Invalid value: 1: must not be decremented',
    ]);
  });

  test('through the generic entry, duplicates collapse into one cause', () => {
    const { namespace: _ignored, ...clusterScoped } = old;
    const stored: KubeObject = { metadata: clusterScoped };
    const next: KubeObject = { metadata: { ...clusterScoped, labels: { 'a b': 'c' } } };
    const errs = validateUpdate('Node', next, stored);
    assert.deepEqual(strings(errs), [`metadata.labels: Invalid value: "a b": name part ${QNAME_MSG}`]);
  });
});
