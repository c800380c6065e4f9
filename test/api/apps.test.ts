// The Pod readings the workload controllers share (k8s:pkg/api/v1/pod/util.go IsPodReady/IsPodAvailable,
// controller_utils.go IsPodActive) and intstr.GetScaledValueFromIntOrPercent's rounding and errors.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { controllerOf, isPodActive, isPodAvailable, isPodReady, type PodView } from '../../src/api/pods.js';
import { IntOrStringError, scaledValue } from '../../src/api/intstr.js';

const T0 = Date.parse('2024-01-01T00:00:00Z');
const pod = (ready: string | undefined, since = '2024-01-01T00:00:00Z', extra: Partial<PodView> = {}): PodView => ({
  metadata: { name: 'p' },
  status: { phase: 'Running', conditions: ready ? [{ type: 'Ready', status: ready, lastTransitionTime: since }] : [] },
  ...extra,
});

describe('Pod readings', () => {
  it('ready means condition Ready=True', () => {
    assert.equal(isPodReady(pod('True')), true);
    assert.equal(isPodReady(pod('False')), false);
    assert.equal(isPodReady(pod(undefined)), false);
  });

  it('available: ready, and ready strictly longer than minReadySeconds', () => {
    const rows: [number, number, boolean][] = [
      [0, 0, true],
      [10, 9_000, false],
      [10, 10_000, false],
      [10, 10_001, true],
    ];
    for (const [minReady, after, want] of rows) {
      assert.equal(isPodAvailable(pod('True'), minReady, T0 + after), want, `minReady ${minReady} after ${after}`);
    }
    assert.equal(isPodAvailable(pod('False'), 0, T0), false);
  });

  it('active: neither terminal nor deleting', () => {
    assert.equal(isPodActive(pod('True')), true);
    assert.equal(isPodActive({ ...pod('True'), status: { phase: 'Failed' } }), false);
    assert.equal(isPodActive({ ...pod('True'), status: { phase: 'Succeeded' } }), false);
    assert.equal(isPodActive({ metadata: { deletionTimestamp: '2024-01-01T00:00:00Z' } }), false);
  });

  it('the controller is the one reference with controller: true', () => {
    const refs = [
      { apiVersion: 'v1', kind: 'A', name: 'a', uid: '1' },
      { apiVersion: 'v1', kind: 'B', name: 'b', uid: '2', controller: true },
    ];
    assert.equal(controllerOf({ ownerReferences: refs })?.uid, '2');
    assert.equal(controllerOf({ ownerReferences: refs.slice(0, 1) }), undefined);
  });
});

describe('scaledValue', () => {
  it('rounds percentages up or down, takes counts as they are', () => {
    const rows: [number | string, number, boolean, number][] = [
      [3, 10, true, 3],
      ['25%', 6, true, 2],
      ['25%', 6, false, 1],
      ['25%', 1, false, 0],
      ['25%', 1, true, 1],
      ['100%', 7, false, 7],
      ['0%', 7, true, 0],
    ];
    for (const [v, total, up, want] of rows) assert.equal(scaledValue(v, total, up), want, `${v} of ${total}`);
  });

  it("refuses what is not a percentage with kube's messages", () => {
    assert.throws(() => scaledValue('3', 10, true), {
      name: 'IntOrStringError',
      message: 'invalid value for IntOrString: invalid type: string is not a percentage',
    });
    assert.throws(
      () => scaledValue('x%', 10, true),
      (e: unknown) =>
        e instanceof IntOrStringError &&
        e.message === 'invalid value for IntOrString: invalid value "x%": strconv.Atoi: parsing "x": invalid syntax',
    );
  });
});
