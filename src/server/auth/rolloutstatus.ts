// The rollout controller's records, which decide what a node is assigned, are written by the controller alone:
// - a NodeConfigRollout's status (its phase, what each node ran before, a layered rollout's rendered ConfigMap) is the
//   controller's report; a write of `nodeconfigrollouts/status` by anyone but the controller's identity (or a cluster
//   admin, who holds the right to assign in any case) is refused with kube's Forbidden Status;
// - on the Node channel a node's revert record lives in its annotation `dkc.io/revert-record`, held to the rule
//   NodeConfig.status.previous has on the NodeConfig channel: only the controller creates, changes or removes it.
// The controller cross-checks both all the same (src/controllers/rollout/trust.ts): a record anyone else wrote assigns
// nothing on a server without these rules either.

import { CONTROLLER_USER } from '../../api/dkc/identity.js';
import { GROUP as ROLLOUT_GROUP, REVERT_RECORD_ANNOTATION } from '../../api/dkc/rollout.js';
import { errors } from '../../api/errors.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../authz.js';

export const rolloutStatusMessages = {
  statusIsTheControllers: (controller: string): string =>
    `the status of a NodeConfigRollout is the rollout controller's record of what it did and decides what it ` +
    `assigns next: only ${JSON.stringify(controller)} may write it`,
  recordIsTheControllers: (controller: string): string =>
    `metadata.annotations[${REVERT_RECORD_ANNOTATION}] is the rollout controller's revert record: only ` +
    `${JSON.stringify(controller)} may write it`,
};

const MASTERS = 'system:masters';

/** The controller itself, or a cluster admin (who may assign config directly, so forges nothing it could not do). */
const mayWriteRecords = (a: AdmissionAttributes): boolean =>
  a.user.name === CONTROLLER_USER || a.user.groups.includes(MASTERS);

/** Whether the request writes a rollout's status (an update, patch or apply of the status subresource). */
export function writesRolloutStatus(a: AdmissionAttributes): boolean {
  return (
    a.resource.group === ROLLOUT_GROUP &&
    a.resource.plural === 'nodeconfigrollouts' &&
    a.subresource === 'status' &&
    a.operation === 'UPDATE'
  );
}

const annotationOf = (obj: unknown): string | undefined =>
  (obj as { metadata?: { annotations?: Record<string, string> } } | undefined)?.metadata?.annotations?.[
    REVERT_RECORD_ANNOTATION
  ];

/** Whether the request sets, changes or removes a Node's revert record annotation. */
export function writesNodeRevertRecord(a: AdmissionAttributes): boolean {
  if (a.resource.group !== '' || a.resource.plural !== 'nodes') return false;
  if (a.operation !== 'CREATE' && a.operation !== 'UPDATE') return false;
  const before = a.operation === 'UPDATE' ? annotationOf(a.oldObject) : undefined;
  return annotationOf(a.requested ?? a.object) !== before;
}

export const rolloutRecords: AdmissionPlugin = {
  name: 'RolloutRecords',
  validate(a) {
    if (mayWriteRecords(a)) return;
    if (writesRolloutStatus(a))
      throw errors.forbidden(
        { group: a.resource.group, name: a.resource.plural },
        a.name,
        rolloutStatusMessages.statusIsTheControllers(CONTROLLER_USER),
      );
    if (writesNodeRevertRecord(a))
      throw errors.forbidden(
        { group: '', name: 'nodes' },
        a.name,
        rolloutStatusMessages.recordIsTheControllers(CONTROLLER_USER),
      );
  },
};
