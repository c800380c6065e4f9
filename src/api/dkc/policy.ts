// NodeConfigPolicy (dkc.io/v1alpha1, deploy/crds/nodeconfigpolicies.dkc.io.yaml): its names and the values of its
// spec that the decision compares (src/nodepolicy reads objects into them). Pure.

export const POLICY_GROUP = 'dkc.io';
export const POLICY_PLURAL = 'nodeconfigpolicies';
export const POLICY_KIND = 'NodeConfigPolicy';

export type Enforcement = 'Deny' | 'Warn';
export type BoundValue = number | string;

export interface Bound {
  minimum?: BoundValue;
  maximum?: BoundValue;
}
