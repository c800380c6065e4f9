// dkc server's admission for NodeConfig (dkc.io), the rules the CRD's schema cannot carry in a form dkc server
// evaluates:
// - validation: spec.configSource, status.config and the revert record's source are held to upstream's rules for
//   Node.spec.configSource and Node.status.config, with upstream's messages (422);
// - the revert record: status.previous decides what a revert assigns, so only the rollout controller may write it
//   (403 for anyone else, cluster admins and nodes alike; creating a NodeConfig with it counts as writing it).
// On a real cluster the CRD's x-kubernetes-validations and deploy/nodeconfig-policy.yaml give the same bounds.

import { DKC_GROUP, NODE_CONFIGS, type NodeConfig } from '../../api/dkc/nodeconfig.js';
import { validateNodeConfig } from '../../api/dkc/validation.js';
import { deepEqual } from '../../api/equal.js';
import { errors } from '../../api/errors.js';
import { CONTROLLER_USER } from '../../api/dkc/identity.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../authz.js';
import { messages } from './messages.js';

const isNodeConfigWrite = (a: AdmissionAttributes): boolean =>
  a.resource.group === DKC_GROUP &&
  a.resource.plural === NODE_CONFIGS &&
  (a.operation === 'CREATE' || a.operation === 'UPDATE');

/** The record as written: absent and null are one. */
const previousOf = (obj: unknown): unknown => (obj as NodeConfig | undefined)?.status?.previous ?? null;

/** Upstream's field rules; runs first, as kube-apiserver validates before its validating admission. */
export const nodeConfigValidation: AdmissionPlugin = {
  name: 'NodeConfigValidation',
  validate(a) {
    if (!isNodeConfigWrite(a) || !a.object) return;
    const errs = validateNodeConfig(a.object as NodeConfig);
    if (errs.length) throw errors.invalid({ group: a.resource.group, name: a.resource.kind }, a.name, errs);
  },
};

/** Whether the request writes the revert record: sets it on create, or changes it on update. */
export function writesRevertRecord(a: AdmissionAttributes): boolean {
  if (!isNodeConfigWrite(a)) return false;
  const before = a.operation === 'UPDATE' ? previousOf(a.oldObject) : null;
  return !deepEqual(previousOf(a.object), before);
}

export const nodeConfigRevertRecord: AdmissionPlugin = {
  name: 'NodeConfigRevertRecord',
  validate(a) {
    if (!writesRevertRecord(a) || a.user.name === CONTROLLER_USER) return;
    throw errors.forbidden(
      { group: a.resource.group, name: a.resource.plural },
      a.name,
      messages.recordIsTheControllers(CONTROLLER_USER),
    );
  },
};
