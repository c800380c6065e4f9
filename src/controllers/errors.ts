// The controller host's messages: log lines in client-go's and kube-controller-manager's words (operators grep for
// them), and the errors the host's flags can raise.

import { CodedError } from '../util/errors.js';

export type ControllerErrorCode =
  /** A --controllers entry names no controller. */
  | 'DKC_CONTROLLER_UNKNOWN'
  /** A duration flag does not parse or is out of range. */
  | 'DKC_CONTROLLER_INVALID_DURATION'
  /** --leader-elect-resource-name is not a valid Lease name. */
  | 'DKC_CONTROLLER_INVALID_LEASE_NAME'
  /** --metrics-bind-address is not host:port. */
  | 'DKC_CONTROLLER_INVALID_BIND_ADDRESS'
  /** The rollout controller's apply of a node assignment conflicts with a field another manager applies. */
  | 'DKC_CONTROLLER_FIELD_CONFLICT';

export class ControllerError extends CodedError<ControllerErrorCode> {
  override name = 'ControllerError';
}

export const messages = {
  unknownController: (name: string, known: readonly string[]) =>
    `unknown controller ${JSON.stringify(name)} in --controllers (known: ${known.join(', ')})`,
  invalidBindAddress: (value: string) =>
    `invalid --metrics-bind-address ${JSON.stringify(value)}: must be host:port, or 0 for none`,
  invalidLeaseName: (value: string, problems: readonly string[]) =>
    `invalid --leader-elect-resource-name ${JSON.stringify(value)}: ${problems.join('; ')}`,
  invalidDuration: (flag: string, value: string) =>
    `invalid ${flag} ${JSON.stringify(value)}: must be a positive duration such as 40s or 1m`,
};

export const logs = {
  attemptingAcquire: (lease: string) => `attempting to acquire leader lease ${lease}...`,
  acquired: (lease: string) => `successfully acquired lease ${lease}`,
  heldByOther: (holder: string) => `lock is held by ${holder} and has not yet expired`,
  newLeader: (holder: string) => `new leader elected: ${holder}`,
  lost: (lease: string) => `failed to renew lease ${lease}: leaderelection lost`,
  attemptFailed: (lease: string, why: string) => `error retrieving resource lock ${lease}: ${why}`,
  releaseFailed: (why: string) => `Failed to release lock: ${why}`,
  stopFailed: (why: string) => `stopping the controllers failed: ${why}`,
  startingController: (name: string) => `Starting controller ${JSON.stringify(name)}`,
  controllerFailed: (name: string, why: string) => `Error starting controller ${JSON.stringify(name)}: ${why}`,
  leadershipEnded: (lease: string) => `leadership of ${lease} ended`,
  stoppedLeading: () => 'stopped leading; stopping the controllers',
  servingMetrics: (address: string) => `serving metrics on http://${address}/metrics`,
};
