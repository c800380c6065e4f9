// `dkc rollout`'s catalogue: every line it shows an operator — the errors (one line on stderr, exit 1, with a stable
// code for programs) and the progress lines of `dkc rollout status` — worded in kubectl's style, so that a rollout
// reads like `kubectl rollout status` and a failure like any other kubectl error.

import { CodedError } from '../../util/errors.js';
import { CONFIG_NAMESPACE } from '../../api/dkc/identity.js';
import { configMapMessages, errorLine as kubectlErrorLine } from '../kubectl.js';

export type RolloutErrorCode =
  /** A flag has a value the command cannot use. */
  | 'DKC_ROLLOUT_INVALID_FLAG'
  /** The ConfigMap named by --configmap does not exist. */
  | 'DKC_ROLLOUT_CONFIGMAP_NOT_FOUND'
  /** The ConfigMap exists but lacks the key named by --key. */
  | 'DKC_ROLLOUT_CONFIGMAP_KEY_MISSING'
  /** --selector (or the empty selector) matches no node. */
  | 'DKC_ROLLOUT_NO_MATCHING_NODES'
  /** The rollout was deleted while `status --watch` followed it. */
  | 'DKC_ROLLOUT_DELETED';

export class RolloutError extends CodedError<RolloutErrorCode> {
  override name = 'RolloutError';
}

const q = (s: string): string => JSON.stringify(s);

export const messages = {
  invalidFlag: (flag: string, value: string, why: string) => `invalid argument ${q(value)} for ${q(flag)} flag: ${why}`,
  notIntOrPercent: 'must be a non-negative integer or a percentage such as 25%',
  notNonNegativeInt: 'must be a non-negative integer',
  notWholeSeconds: 'must be a whole number of seconds',
  notAtLeastOneSecond: 'must be at least 1s',
  negativeDuration: 'must not be negative',
  notPositiveDuration: 'must be greater than 0',
  notNamespacedName: 'must be NAMESPACE/NAME',
  emptyKey: 'must not be empty',
  selectorOperator: (op: string) => `the ${q(op)} operator cannot be expressed in a nodeSelector`,
  configMapNotFound: configMapMessages.notFound,
  configMapKeyMissing: configMapMessages.noKey,
  noMatchingNodes: (selector: string) =>
    selector ? `no node matches the selector ${q(selector)}` : 'there are no nodes to roll out to',
  rolloutDeleted: (name: string) => `nodeconfigrollout ${q(name)} was deleted`,
  timedOut: 'timed out waiting for the condition',
} as const;

/** The one line a failure prints, as kubectl words it: `Error from server (Reason): …` for the server's refusals. */
export function errorLine(err: unknown): string {
  return kubectlErrorLine(err, (m) => m.replace(/\r?\n/g, ' '));
}

/** What `dkc rollout plan` prints. */
export const preview = {
  target: (ref: { namespace: string; name: string; kubeletConfigKey: string }, nodes: readonly string[]) =>
    `ConfigMap ${ref.namespace}/${ref.name} (key ${ref.kubeletConfigKey}) would go to ${nodes.length} ${nodes.length === 1 ? 'node' : 'nodes'}: ${nodes.join(', ')}`,
  localOverride: (node: string, overrides: readonly { field: string; file: string }[]) =>
    `node ${node}: a local drop-in overrides ${overrides.map((o) => `${o.field} (${o.file})`).join(', ')}: it would not run the config as rolled out, and fail (LocalOverride)`,
} as const;

/** The progress lines of `dkc rollout status`. Batch 0 is the canary. */
export const progress = {
  created: (name: string) => `nodeconfigrollout.dkc.io/${name} created`,
  patched: (name: string, what: string) => `nodeconfigrollout.dkc.io/${name} ${what}`,
  waitingToStart: (name: string) => `Waiting for nodeconfigrollout ${q(name)} to start...`,
  /** A layered rollout's rendering, or the pinned copy of a rollout's ConfigMap: what the nodes are assigned. */
  rendered: (configMap: string) =>
    `rolling out ConfigMap ${CONFIG_NAMESPACE}/${configMap}: an immutable copy made from the rollout's config`,
  batchStarted: (batch: number, nodes: readonly string[]) =>
    `${batch === 0 ? 'canary' : `batch ${batch}`} started: ${nodes.join(', ')}`,
  nodeFailed: (node: string, reason: string, message: string) =>
    `node ${node} failed (${reason})${message ? `: ${message}` : ''}`,
  nodeWaiting: (node: string, reason: string) =>
    `node ${node} waiting (${reason}): left unchanged until it is Ready with a fresh heartbeat`,
  nodeDeleted: (node: string) => `node ${node} was deleted during the rollout`,
  nodeDegraded: (node: string, reason: string, message: string) =>
    `node ${node} no longer runs the config (${reason})${message ? `: ${message}` : ''}`,
  /** After the phase's counts: how many of the nodes that succeeded have left the config since. */
  degradedDetail: (n: number) =>
    n === 0 ? '' : `, but ${n} ${n === 1 ? 'node no longer runs' : 'nodes no longer run'} it`,
  degraded: (name: string, n: number, target: number) =>
    n === 0
      ? `nodeconfigrollout ${q(name)}: every node runs the config again`
      : `nodeconfigrollout ${q(name)}: ${n} of ${target} nodes no longer run the config`,
  nodeIncompatible: (node: string, version: string, reason: string) =>
    `node ${node} left out: its kubelet ${version} cannot run the config (${reason})`,
  /** What an undo did: only the nodes put back on what the rollout found count as restored. */
  restored: (restored: number, notRestored: number) =>
    ` (${restored} ${restored === 1 ? 'node' : 'nodes'} restored${notRestored > 0 ? `, ${notRestored} not restored` : ''})`,
  phase: (name: string, phase: string, detail: string) => {
    const base = `nodeconfigrollout ${q(name)}`;
    switch (phase) {
      case 'Succeeded':
        return `${base} successfully rolled out${detail}`;
      case 'Paused':
        return `${base} paused${detail}`;
      case 'Progressing':
        return `${base} progressing${detail}`;
      case 'Halted':
        return `${base} halted${detail}`;
      case 'Reverting':
        return `${base} reverting${detail}`;
      case 'Reverted':
        return `${base} reverted${detail}`;
      default:
        return `${base} is ${phase}${detail}`;
    }
  },
  counts: (succeeded: number, target: number, failed: number, incompatible = 0) =>
    ` (${succeeded} of ${target} nodes succeeded${failed ? `, ${failed} failed` : ''}${incompatible ? `, ${incompatible} left out as incompatible` : ''})`,
  noResources: 'No resources found',
} as const;
