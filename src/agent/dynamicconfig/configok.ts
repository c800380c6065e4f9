// The ConfigOK node condition of the 1.8 alpha (upstream's kubeletconfig/status ConfigOKCondition), published beside
// Node.status.config so readers of either generation of the docs see what they expect. Pure: the condition is a
// function of the boot decision and of the sync loop's failure, and its timestamps a function of the condition the
// Node already carries. Messages and reasons are upstream's, character for character (scripts compare them).

import type { NodeCondition } from '../../api/types.js';
import type { NodeConfigSource } from './source.js';

export const CONFIG_OK = 'ConfigOK';

export const CurDefaultMessage = 'using current (default)';
export const LkgDefaultMessage = 'using last-known-good (default)';
export const CurInitMessage = 'using current (init)';
export const LkgInitMessage = 'using last-known-good (init)';
export const CurDefaultOKReason = 'current is set to the local default, and no init config was provided';
export const CurInitOKReason = 'current is set to the local default, and an init config was provided';
export const CurRemoteOKReason = 'passing all checks';

const curRemoteMessage = (uid: string) => `using current (UID: ${JSON.stringify(uid)})`;
const lkgRemoteMessage = (uid: string) => `using last-known-good (UID: ${JSON.stringify(uid)})`;

/**
 * How the assigned config failed: loading its checkpoint, parsing it, validating it, or (dkc) a crash loop or a
 * NodeConfigPolicy that denies it.
 */
export type FailureStage = 'load' | 'parse' | 'validate' | 'crashloop' | 'policy';

const FAILURE_REASONS: Record<FailureStage, (uid: string) => string> = {
  load: (uid) => `failed to load current (UID: ${JSON.stringify(uid)})`,
  parse: (uid) => `failed to parse current (UID: ${JSON.stringify(uid)})`,
  validate: (uid) => `failed to validate current (UID: ${JSON.stringify(uid)})`,
  crashloop: (uid) => `current failed trial period due to crash loop (UID: ${JSON.stringify(uid)})`,
  policy: (uid) => `current denied by NodeConfigPolicy (UID: ${JSON.stringify(uid)})`,
};

/** The 1.8 sync-failure reasons (status.FailSyncReason*), for the condition; status.config keeps its own texts. */
export const FailSyncReasonAllNilSubfields =
  'invalid NodeConfigSource, exactly one subfield must be non-nil, but all were nil';
export const FailSyncReasonInformer = 'failed to read Node from informer object cache';
export const FailSyncReasonReset = 'failed to reset to local (default or init) config';
export function failSyncReasonDownload(name: string, namespace: string): string {
  return `could not download ConfigMap with name ${JSON.stringify(name)} from namespace ${JSON.stringify(namespace)}`;
}
export function failSyncReasonCheckpoint(uid: string): string {
  return `failed to checkpoint ConfigMap with UID ${JSON.stringify(uid)}`;
}
export function failSyncReasonSetCurrent(uid: string): string {
  return `failed to set current config checkpoint to object with UID ${JSON.stringify(uid)}`;
}

export type ConditionStatus = 'True' | 'False' | 'Unknown';

export interface ConfigOKCondition {
  message: string;
  reason: string;
  status: ConditionStatus;
}

export interface ConfigOKInput {
  /** What this boot runs: the local config (--config file or defaults), the assigned checkpoint, or last-known-good. */
  use: 'local' | 'assigned' | 'last-known-good';
  assigned?: NodeConfigSource | undefined;
  lastKnownGood?: NodeConfigSource | undefined;
  /** Why the assigned config was rejected at boot, when it was. */
  rejected?: FailureStage | undefined;
  /** The agent was started with a --config file ("init") rather than built-in defaults only ("default"). */
  initConfig: boolean;
}

function uidOf(src: NodeConfigSource | undefined): string {
  return src?.configMap?.uid ?? src?.configMapRef?.uid ?? '';
}

/** The condition for a boot decision (the Controller.Bootstrap of 1.8, in its ConfigOK terms). */
export function configOK(input: ConfigOKInput): ConfigOKCondition {
  const local = input.initConfig
    ? { cur: CurInitMessage, lkg: LkgInitMessage, ok: CurInitOKReason }
    : { cur: CurDefaultMessage, lkg: LkgDefaultMessage, ok: CurDefaultOKReason };
  if (input.use === 'assigned')
    return { message: curRemoteMessage(uidOf(input.assigned)), reason: CurRemoteOKReason, status: 'True' };
  if (input.rejected === undefined || !input.assigned) return { message: local.cur, reason: local.ok, status: 'True' };
  const reason = FAILURE_REASONS[input.rejected](uidOf(input.assigned));
  const message = input.use === 'last-known-good' ? lkgRemoteMessage(uidOf(input.lastKnownGood)) : local.lkg;
  return { message, reason, status: 'False' };
}

/**
 * The condition while the sync loop cannot tell which config is wanted (1.8's SetFailedSyncCondition): the message
 * still says what runs, the reason says why the sync failed, the status is Unknown.
 */
export function withFailedSync(c: ConfigOKCondition, syncReason: string): ConfigOKCondition {
  if (syncReason === '') return c;
  return {
    message: c.message,
    reason: `failed to sync, desired config unclear, reason: ${syncReason}`,
    status: 'Unknown',
  };
}

/**
 * The NodeCondition to publish at `now`: the heartbeat is the time of this write; the transition time is kept from the
 * condition the Node carries unless the status or the message changed.
 */
export function conditionAt(c: ConfigOKCondition, previous: NodeCondition | undefined, now: string): NodeCondition {
  const same =
    previous !== undefined &&
    previous.status === c.status &&
    previous.message === c.message &&
    typeof previous.lastTransitionTime === 'string';
  return {
    type: CONFIG_OK,
    status: c.status,
    lastHeartbeatTime: now,
    lastTransitionTime: same ? previous.lastTransitionTime! : now,
    reason: c.reason,
    message: c.message,
  };
}
