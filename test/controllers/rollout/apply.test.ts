// The rollout controller's applies, as pure decisions: what it applies for a node patch, what an apply could not
// remove, and which 409s are another applier's (reported) rather than an updater's (taken with force).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Status } from '../../../src/api/errors.js';
import {
  appliedAssignment,
  appliedByOthers,
  fieldConflict,
  leftOver,
  type AssignmentPatch,
} from '../../../src/controllers/rollout/apply.js';

const A = { configMap: { namespace: 'kube-system', name: 'a', kubeletConfigKey: 'kubelet' } };
const B = { configMap: { namespace: 'kube-system', name: 'b', kubeletConfigKey: 'kubelet' } };
const HEAD = { apiVersion: 'v1', kind: 'Node', name: 'n1' };
const patch = (
  annotations: Record<string, string | null>,
  spec?: { configSource: typeof A | null },
): AssignmentPatch => ({
  metadata: { resourceVersion: '7', annotations },
  ...(spec ? { spec } : {}),
});
const conflict = (...messages: string[]): Status => ({
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  code: 409,
  reason: 'Conflict',
  message: 'Apply failed',
  details: {
    causes: messages.map((message) => ({ reason: 'FieldManagerConflict', message, field: '.spec.configSource' })),
  },
});

describe('appliedAssignment', () => {
  it('applies the rollout annotation and the source a start sets, with the resourceVersion as a precondition', () => {
    assert.deepEqual(
      appliedAssignment(
        HEAD,
        patch({ 'dkc.io/rollout': 'r1', 'dkc.io/previous-config-source': null }, { configSource: A }),
        undefined,
      ),
      {
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name: 'n1', resourceVersion: '7', annotations: { 'dkc.io/rollout': 'r1' } },
        spec: { configSource: A },
      },
    );
  });

  it('a release leaves out the annotation and keeps applying the source the object has (else it would go)', () => {
    const seen = { metadata: { name: 'n1' }, spec: { configSource: B } };
    assert.deepEqual(appliedAssignment(HEAD, patch({ 'dkc.io/rollout': null }), seen), {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'n1', resourceVersion: '7' },
      spec: { configSource: B },
    });
  });

  it('back on the local config: no source applied', () => {
    assert.deepEqual(
      appliedAssignment(HEAD, patch({ 'dkc.io/rollout': null }, { configSource: null }), {
        metadata: {},
        spec: { configSource: B },
      }).spec,
      undefined,
    );
  });
});

describe('leftOver and appliedByOthers', () => {
  it('what a patch removes and another manager kept is removed by a merge patch at the answer’s resourceVersion', () => {
    const answer = {
      metadata: { resourceVersion: '9', annotations: { 'dkc.io/rollout': 'r1', other: 'x' } },
      spec: { configSource: B },
    };
    assert.deepEqual(leftOver(patch({ 'dkc.io/rollout': null }, { configSource: null }), answer), {
      metadata: { resourceVersion: '9', annotations: { 'dkc.io/rollout': null } },
      spec: { configSource: null },
    });
    assert.equal(
      leftOver(patch({ 'dkc.io/rollout': null }, { configSource: A }), { metadata: {}, spec: { configSource: A } }),
      undefined,
    );
  });

  it('names another applier that declares a field to remove; an updater’s or the controller’s own are not', () => {
    const managedFields = [
      { manager: 'gitops', operation: 'Apply', fieldsV1: { 'f:spec': { 'f:configSource': { 'f:configMap': {} } } } },
      {
        manager: 'kubectl-patch',
        operation: 'Update',
        fieldsV1: { 'f:metadata': { 'f:annotations': { 'f:dkc.io/rollout': {} } } },
      },
      {
        manager: 'dkc-rollout-controller',
        operation: 'Apply',
        fieldsV1: { 'f:metadata': { 'f:annotations': { 'f:dkc.io/rollout': {} } } },
      },
    ];
    const removal = { metadata: { annotations: { 'dkc.io/rollout': null } }, spec: { configSource: null } };
    assert.deepEqual(appliedByOthers(removal, { metadata: { managedFields } }), [
      'conflict with "gitops": .spec.configSource',
    ]);
    assert.deepEqual(
      appliedByOthers({ metadata: { annotations: { 'dkc.io/rollout': null } } }, { metadata: { managedFields } }),
      [],
    );
  });
});

describe('fieldConflict', () => {
  it('tells appliers from updaters by kube-apiserver’s cause messages (“using <apiVersion>” is an updater)', () => {
    assert.deepEqual(
      fieldConflict(conflict('conflict with "kubectl-patch" using v1', 'conflict with "before-first-apply" using v1')),
      { byApplier: false },
    );
    assert.deepEqual(fieldConflict(conflict('conflict with "kubectl-patch" using v1', 'conflict with "flux"')), {
      byApplier: true,
    });
    assert.deepEqual(fieldConflict(conflict('conflict with "a \\"using\\" b" with subresource "status"')), {
      byApplier: true,
    });
    assert.deepEqual(fieldConflict(conflict('conflict with "x" with subresource "status" using v1')), {
      byApplier: false,
    });
  });

  it('a 409 without field conflicts (a stale resourceVersion) is not one', () => {
    assert.equal(fieldConflict({ ...conflict(), details: {} }), undefined);
  });
});
