// The API review policy for CRDs in protected groups: which groups, which annotation values approve, bypass or fail,
// and when an update may keep a state that a create would refuse (apiextensions-apiserver's rules and words).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  approvalCondition,
  approvalState,
  isApprovalURL,
  isProtectedGroup,
  validateApproval,
} from '../../../src/server/crd/approval.js';

const A = 'api-approved.kubernetes.io';
const PR = 'https://github.com/kubernetes/enhancements/pull/1111';

describe('protected groups', () => {
  const cases: [string, boolean][] = [
    ['k8s.io', true],
    ['apps.k8s.io', true],
    ['rbac.authorization.k8s.io', true],
    ['kubernetes.io', true],
    ['x.y.kubernetes.io', true],
    ['notk8s.io', false],
    ['k8s.io.example.com', false],
    ['dkc.io', false],
    ['example.dkc.io', false],
  ];
  for (const [group, protectedGroup] of cases)
    it(`${group} → ${protectedGroup}`, () => assert.equal(isProtectedGroup(group), protectedGroup));
});

describe('the annotation as a URL (Go url.ParseRequestURI with a scheme and a host)', () => {
  const cases: [string, boolean][] = [
    [PR, true],
    ['http://example.com', true],
    ['ftp://h', true],
    ['https://[::1]:8443/x', true],
    ['https://user@example.com/x?y#z', true],
    ['https://example.com:8080', true],
    ['https://', false],
    ['https:/example.com', false],
    ['https:example.com', false],
    ['github.com/kubernetes/enhancements/pull/1111', false],
    ['/pull/1111', false],
    ['mailto:someone@example.com', false],
    ['https://exa mple.com/', false],
    ['https://example.com:port/', false],
    ['https://example.com/\n', false],
    ['1https://example.com', false],
  ];
  for (const [value, ok] of cases) it(`${JSON.stringify(value)} → ${ok}`, () => assert.equal(isApprovalURL(value), ok));
});

describe('approval states, conditions and validation', () => {
  it("reads the four states with kube-apiserver's reasons", () => {
    assert.deepEqual(approvalState({}), {
      state: 'Missing',
      reason:
        'protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111',
    });
    assert.deepEqual(approvalState({ [A]: 'unapproved, experimental' }), {
      state: 'Bypassed',
      reason: 'not approved: "unapproved, experimental"',
    });
    assert.deepEqual(approvalState({ [A]: PR }), { state: 'Approved', reason: `approved in ${PR}` });
    assert.equal(approvalState({ [A]: 'approved' }).state, 'Invalid');
  });

  it('gives the KubernetesAPIApprovalPolicyConformant condition in protected groups only', () => {
    assert.deepEqual(approvalCondition('example.k8s.io', { [A]: PR }), {
      status: 'True',
      reason: 'ApprovedAnnotation',
      message: `approved in ${PR}`,
    });
    assert.equal(approvalCondition('example.k8s.io', { [A]: 'unapproved' })?.reason, 'UnapprovedAnnotation');
    assert.equal(approvalCondition('example.k8s.io', {})?.reason, 'MissingAnnotation');
    assert.equal(approvalCondition('example.k8s.io', { [A]: 'x' })?.reason, 'InvalidAnnotation');
    assert.equal(approvalCondition('example.dkc.io', {}), undefined);
  });

  it('refuses a create without a valid annotation, and an update only when it changes the state to a refused one', () => {
    assert.deepEqual(validateApproval('example.dkc.io', {}), []);
    assert.equal(
      validateApproval('example.k8s.io', {}).map(String).join(),
      'metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111',
    );
    assert.match(
      validateApproval('example.k8s.io', { [A]: 'x' })
        .map(String)
        .join(),
      /^metadata\.annotations\[api-approved\.kubernetes\.io\]: Invalid value: "x": protected groups must have/,
    );
    assert.deepEqual(validateApproval('example.k8s.io', { [A]: 'unapproved' }), []);
    // A CRD stored before the rule keeps its state through updates.
    assert.deepEqual(validateApproval('example.k8s.io', {}, {}), []);
    assert.deepEqual(validateApproval('example.k8s.io', { [A]: 'x' }, { [A]: 'y' }), []);
    assert.equal(validateApproval('example.k8s.io', { [A]: 'x' }, { [A]: PR }).length, 1);
    assert.equal(validateApproval('example.k8s.io', {}, { [A]: PR }).length, 1);
  });
});
