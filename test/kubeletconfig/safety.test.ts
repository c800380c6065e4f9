// Every v1beta1 field has a safety class and a reason: a field added to the codec's schema without an entry in the
// table fails here (and the table's type fails to compile).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  FIELD_NAMES,
  FIELD_SAFETY,
  SAFETY_CLASSES,
  fieldsBySafetyClass,
  safetyOf,
} from '../../src/kubeletconfig/index.js';

test('every v1beta1 field has a class and a one-line reason, and the table has no other entry', () => {
  const missing = FIELD_NAMES.filter((f) => !FIELD_SAFETY.has(f));
  assert.deepEqual(missing, [], `fields without a safety class: ${missing.join(', ')}`);
  assert.deepEqual([...FIELD_SAFETY.keys()].sort(), [...FIELD_NAMES].sort());
  assert.equal(FIELD_SAFETY.size, 102);
  for (const s of FIELD_SAFETY.values()) {
    assert.ok(SAFETY_CLASSES.includes(s.class), `${s.field}: ${s.class}`);
    assert.match(s.reason, /^[^\n]{10,120}$/, `${s.field}: reason must be one line`);
  }
  const by = fieldsBySafetyClass();
  assert.equal(by.safe.length + by.disruptive.length + by.dangerous.length, 102);
});

test('the classes the issue names', () => {
  for (const f of ['maxPods', 'eventRecordQPS', 'kubeAPIQPS']) assert.equal(safetyOf(f)?.class, 'safe', f);
  for (const f of [
    'cgroupDriver',
    'cpuManagerPolicy',
    'memoryManagerPolicy',
    'topologyManagerPolicy',
    'evictionHard',
  ]) {
    assert.equal(safetyOf(f)?.class, 'disruptive', f);
  }
  for (const f of [
    'authentication',
    'tlsCertFile',
    'tlsPrivateKeyFile',
    'address',
    'port',
    'readOnlyPort',
    'staticPodPath',
  ]) {
    assert.equal(safetyOf(f)?.class, 'dangerous', f);
  }
});

test('paths inside a field take its class, except the nested entries of their own', () => {
  assert.equal(safetyOf('authentication.x509.clientCAFile')?.class, 'dangerous');
  assert.match(safetyOf('authentication.x509.clientCAFile')!.reason, /401/);
  assert.equal(safetyOf('authorization.mode')?.class, 'dangerous');
  assert.equal(safetyOf('authorization.webhook.cacheAuthorizedTTL')?.class, 'safe');
  assert.equal(safetyOf('authorization.webhook.cacheAuthorizedTTL')?.field, 'authorization.webhook');
  assert.equal(safetyOf('evictionHard["memory.available"]')?.field, 'evictionHard');
  assert.equal(safetyOf('maxPodz'), undefined);
});
