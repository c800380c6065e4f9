import { test, describe } from 'node:test';
import assert from 'node:assert/strict';

import { errors } from '../../../src/api/errors.js';
import type { Event, Lease } from '../../../src/api/types.js';
import {
  UnknownKindError,
  isNamespacedKind,
  isValidatedKind,
  validateCreate,
  validateUpdate,
} from '../../../src/api/validation/index.js';
import { LABEL_MSG, SUBDOMAIN_MSG, invalidMessage, strings } from './messages.js';

describe('Namespace', () => {
  test('valid', () => assert.deepEqual(validateCreate('Namespace', { metadata: { name: 'kube-system' } }), []));

  test('name must be a DNS-1123 label (no dots)', () => {
    assert.equal(
      invalidMessage('Namespace', 'a.b', validateCreate('Namespace', { metadata: { name: 'a.b' } })),
      `Namespace "a.b" is invalid: metadata.name: Invalid value: "a.b": ${LABEL_MSG}`,
    );
  });

  test('spec.finalizers names', () => {
    assert.deepEqual(
      validateCreate('Namespace', { metadata: { name: 'x' }, spec: { finalizers: ['kubernetes'] } }),
      [],
    );
    assert.deepEqual(
      strings(validateCreate('Namespace', { metadata: { name: 'x' }, spec: { finalizers: ['nope'] } })),
      ['spec.finalizers: Invalid value: "nope": name is neither a standard finalizer name nor is it fully qualified'],
    );
  });

  test('update: name immutable', () => {
    const old = { metadata: { name: 'x', resourceVersion: '1' } };
    assert.deepEqual(strings(validateUpdate('Namespace', { metadata: { name: 'y', resourceVersion: '1' } }, old)), [
      'metadata.name: Invalid value: "y": field is immutable',
    ]);
  });
});

describe('Lease', () => {
  const lease = (spec: Lease['spec']): Lease => ({
    metadata: { name: 'n1', namespace: 'kube-node-lease' },
    ...(spec !== undefined ? { spec } : {}),
  });

  test('valid', () => {
    assert.deepEqual(
      validateCreate('Lease', lease({ holderIdentity: 'n1', leaseDurationSeconds: 40, leaseTransitions: 0 })),
      [],
    );
  });

  test('leaseDurationSeconds must be > 0', () => {
    assert.equal(
      invalidMessage('Lease', 'n1', validateCreate('Lease', lease({ leaseDurationSeconds: 0 })), 'coordination.k8s.io'),
      'Lease.coordination.k8s.io "n1" is invalid: spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0',
    );
  });

  test('leaseTransitions must be >= 0', () => {
    assert.deepEqual(strings(validateCreate('Lease', lease({ leaseDurationSeconds: -5, leaseTransitions: -1 }))), [
      'spec.leaseDurationSeconds: Invalid value: -5: must be greater than 0',
      'spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0',
    ]);
  });

  test('update checks the spec too', () => {
    const old = lease({ leaseDurationSeconds: 40 });
    old.metadata.resourceVersion = '9';
    const next = lease({ leaseDurationSeconds: 0 });
    next.metadata.resourceVersion = '9';
    assert.deepEqual(strings(validateUpdate('Lease', next, old)), [
      'spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0',
    ]);
  });

  test('name must be a subdomain', () => {
    assert.deepEqual(strings(validateCreate('Lease', { metadata: { name: 'N1', namespace: 'kube-node-lease' } })), [
      `metadata.name: Invalid value: "N1": ${SUBDOMAIN_MSG}`,
    ]);
  });
});

describe('Event (core/v1 legacy rules)', () => {
  const ev = (extra: Partial<Event>): Event => ({
    metadata: { name: 'n1.17a8b3c4d5e6f708', namespace: 'default' },
    involvedObject: { kind: 'Node', name: 'n1', uid: 'n1' },
    reason: 'KubeletConfigChanged',
    message: 'Kubelet restarting to use ...',
    source: { component: 'kubelet', host: 'n1' },
    type: 'Normal',
    ...extra,
  });

  test('node events in "default" with an empty involvedObject.namespace are fine', () => {
    assert.deepEqual(validateCreate('Event', ev({})), []);
  });

  test('involvedObject.namespace must match the event namespace', () => {
    const e = ev({ involvedObject: { kind: 'ConfigMap', name: 'c', namespace: 'kube-system' } });
    assert.equal(
      invalidMessage('Event', 'n1.17a8b3c4d5e6f708', validateCreate('Event', e)),
      'Event "n1.17a8b3c4d5e6f708" is invalid: involvedObject.namespace: Invalid value: "kube-system": does not match event.namespace',
    );
  });

  test("a cluster-scoped object's event may not live in an arbitrary namespace", () => {
    const e = ev({});
    e.metadata.namespace = 'team-a';
    assert.deepEqual(strings(validateCreate('Event', e)), [
      'involvedObject.namespace: Invalid value: "": does not match event.namespace',
    ]);
  });

  test('new-style events (eventTime set) must name their reporter and action', () => {
    const e = ev({ eventTime: '2024-01-01T00:00:00.000000Z', reason: '' });
    assert.deepEqual(strings(validateCreate('Event', e)), [
      'reportingComponent: Required value',
      'reportingComponent: Invalid value: "": name part must be non-empty',
      "reportingComponent: Invalid value: \"\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
      'reportingInstance: Required value',
      'action: Required value',
      'reason: Required value',
    ]);
  });

  test('new-style events: length limits', () => {
    const e = ev({
      eventTime: '2024-01-01T00:00:00.000000Z',
      reportingComponent: 'kubelet',
      reportingInstance: 'n1',
      action: 'Restart',
      reason: 'r'.repeat(129),
      message: 'm'.repeat(1025),
    });
    assert.deepEqual(strings(validateCreate('Event', e)), [
      'reason: Invalid value: "": can have at most 128 characters',
      'message: Invalid value: "": can have at most 1024 characters',
    ]);
  });

  test('metadata rules run once the event rules pass (path-segment names)', () => {
    const e = ev({});
    e.metadata.name = 'a/b';
    assert.deepEqual(strings(validateCreate('Event', e)), [
      'metadata.name: Invalid value: "a/b": may not contain \'/\'',
    ]);
  });

  test('update keeps the legacy rules and metadata immutability', () => {
    const old = ev({});
    old.metadata.resourceVersion = '3';
    const next = ev({ count: 2 });
    next.metadata.resourceVersion = '3';
    assert.deepEqual(validateUpdate('Event', next, old), []);
    next.metadata.name = 'other';
    assert.deepEqual(strings(validateUpdate('Event', next, old)), [
      'metadata.name: Invalid value: "other": field is immutable',
    ]);
  });
});

describe('Pod (minimal)', () => {
  test('valid', () => {
    assert.deepEqual(
      validateCreate('Pod', { metadata: { name: 'p', namespace: 'default' }, spec: { nodeName: 'n1' } }),
      [],
    );
  });
  test('nodeName must be a node name', () => {
    assert.deepEqual(
      strings(validateCreate('Pod', { metadata: { name: 'p', namespace: 'default' }, spec: { nodeName: 'N 1' } })),
      [`spec.nodeName: Invalid value: "N 1": ${SUBDOMAIN_MSG}`],
    );
  });
});

describe('generic entry', () => {
  test('scopes', () => {
    assert.equal(isNamespacedKind('Node'), false);
    assert.equal(isNamespacedKind('Namespace'), false);
    assert.equal(isNamespacedKind('ConfigMap'), true);
    assert.equal(isNamespacedKind('Event'), true);
    assert.equal(isNamespacedKind('Lease'), true);
    assert.equal(isNamespacedKind('Pod'), true);
    assert.equal(isValidatedKind('Secret'), false);
  });

  test('an unknown kind is a wiring error', () => {
    assert.throws(
      () => validateCreate('Secret', { metadata: { name: 'x' } }),
      (e: unknown) => e instanceof UnknownKindError && e.code === 'DKC_API_UNKNOWN_KIND',
    );
    assert.throws(() => validateCreate('toString', { metadata: { name: 'x' } }), UnknownKindError);
  });

  test('the 422 Status carries kind, name and one cause per error', () => {
    const errs = validateCreate('ConfigMap', { metadata: { name: 'c' }, data: { '..': '' } });
    const err = errors.invalid({ group: '', name: 'ConfigMap' }, 'c', errs);
    assert.equal(err.code, 422);
    assert.equal(
      err.message,
      `ConfigMap "c" is invalid: [metadata.namespace: Required value, data[..]: Invalid value: "..": must not be '..']`,
    );
    assert.deepEqual(err.status.details, {
      name: 'c',
      kind: 'ConfigMap',
      causes: [
        { reason: 'FieldValueRequired', message: 'Required value', field: 'metadata.namespace' },
        { reason: 'FieldValueInvalid', message: `Invalid value: "..": must not be '..'`, field: 'data[..]' },
      ],
    });
  });
});
