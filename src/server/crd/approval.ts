// The Kubernetes API review policy for CustomResourceDefinitions, as apiextensions-apiserver enforces it: a CRD in a
// protected group (k8s.io, kubernetes.io and their subdomains) needs the annotation api-approved.kubernetes.io, either
// the URL where the API was approved or a reason starting with "unapproved". Creating one without a valid annotation
// is refused; an update is refused only when it changes the annotation's state to an invalid one (so a CRD stored
// before this rule can still be updated). The KubernetesAPIApprovalPolicyConformant condition reports the state.

import { field, type FieldError } from '../../api/field.js';
import { msg } from './messages.js';
import type { CrdCondition } from './types.js';

export const API_APPROVED_ANNOTATION = 'api-approved.kubernetes.io';
const ANNOTATION_PATH = `metadata.annotations[${API_APPROVED_ANNOTATION}]`;

export type ApprovalState = 'Invalid' | 'Approved' | 'Bypassed' | 'Missing';

export function isProtectedGroup(group: string): boolean {
  return (
    group === 'k8s.io' || group.endsWith('.k8s.io') || group === 'kubernetes.io' || group.endsWith('.kubernetes.io')
  );
}

// Characters Go's net/url leaves unescaped in a host (shouldEscape in encodeHost mode); bytes ≥ 0x80 pass as well.
const HOST_CHARS = /^(?:[A-Za-z0-9\-._~!$&'()*+,;=:[\]<>"]|%[0-9A-Fa-f]{2}|[^\x00-\x7f])*$/;

function validPort(port: string): boolean {
  return port === '' || /^:[0-9]*$/.test(port);
}

/**
 * Whether Go's url.ParseRequestURI accepts `s` with a scheme and a non-empty host: the test kube-apiserver applies to
 * the annotation (scheme, then "//", an authority whose host part is well formed, an optional port).
 */
export function isApprovalURL(s: string): boolean {
  if (/[\x00-\x1f\x7f]/.test(s)) return false;
  const m = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/([^/?]*)/.exec(s);
  if (!m) return false;
  const authority = m[1]!;
  const host = authority.slice(authority.lastIndexOf('@') + 1);
  if (host === '' || !HOST_CHARS.test(host)) return false;
  if (host.startsWith('[')) {
    const close = host.indexOf(']');
    return close > 0 && validPort(host.slice(close + 1));
  }
  const colon = host.lastIndexOf(':');
  return colon < 0 || validPort(host.slice(colon));
}

/** The annotation's state and the reason kube-apiserver gives for it. */
export function approvalState(annotations: Record<string, string> | undefined): {
  state: ApprovalState;
  reason: string;
} {
  const value = annotations?.[API_APPROVED_ANNOTATION] ?? '';
  if (value === '') return { state: 'Missing', reason: msg.approval.missing };
  if (value.startsWith('unapproved')) return { state: 'Bypassed', reason: msg.approval.bypassed(value) };
  if (isApprovalURL(value)) return { state: 'Approved', reason: msg.approval.approved(value) };
  return { state: 'Invalid', reason: msg.approval.invalid };
}

/** The approval rule of CRD validation; `old` is the stored CRD on update. */
export function validateApproval(
  group: string,
  annotations: Record<string, string> | undefined,
  old?: Record<string, string>,
): FieldError[] {
  if (!isProtectedGroup(group)) return [];
  const { state, reason } = approvalState(annotations);
  if (old !== undefined && approvalState(old).state === state) return [];
  if (state === 'Missing') return [field.required(ANNOTATION_PATH, reason)];
  if (state === 'Invalid')
    return [field.invalid(ANNOTATION_PATH, annotations?.[API_APPROVED_ANNOTATION] ?? '', reason)];
  return [];
}

/** The KubernetesAPIApprovalPolicyConformant condition (status, reason, message), or none outside protected groups. */
export function approvalCondition(
  group: string,
  annotations: Record<string, string> | undefined,
): Omit<CrdCondition, 'type' | 'lastTransitionTime'> | undefined {
  if (!isProtectedGroup(group)) return undefined;
  const { state, reason } = approvalState(annotations);
  const byState: Record<ApprovalState, [CrdCondition['status'], string]> = {
    Invalid: ['False', 'InvalidAnnotation'],
    Missing: ['False', 'MissingAnnotation'],
    Approved: ['True', 'ApprovedAnnotation'],
    Bypassed: ['False', 'UnapprovedAnnotation'],
  };
  const [status, why] = byState[state];
  return { status, reason: why, message: reason };
}
