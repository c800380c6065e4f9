// Every text the rollout controller shows people: failure messages in status.failures and status.nodes, condition
// reasons and messages, event messages and log lines. One catalogue, so that `dkc rollout status`, kubectl and the docs agree.

import type { NodeConfigSource } from '../../api/types.js';
import { CONFIG_NAMESPACE } from '../../api/dkc/identity.js';

/** How a source reads in messages: `kube-system/my-config (key kubelet)`, or `local config`. */
export function describeSource(src: NodeConfigSource | null): string {
  const cm = src?.configMap;
  return cm ? `ConfigMap ${cm.namespace}/${cm.name} (key ${cm.kubeletConfigKey})` : 'local config';
}

/** `1 node`, `2 nodes`. */
function nodeCount(n: number): string {
  return `${n} ${n === 1 ? 'node' : 'nodes'}`;
}

export const failureMessages = {
  notReady: (condition: string): string => `node is not Ready after the change (Ready=${condition})`,
  notActive: (deadlineSeconds: number): string =>
    `the new config was not active, without error and Ready, within ${deadlineSeconds}s`,
  overridden: 'spec.configSource was changed by someone else during the rollout',
  heartbeatStale: (renewTime: string | undefined): string =>
    `node stopped heartbeating after the change (its Lease was ${renewTime === undefined ? 'never renewed' : `last renewed at ${renewTime}`})`,
  /** An undo found the node moved on since this rollout set it: it stays where it is. */
  overriddenSince: (now: NodeConfigSource | null, holder: string | undefined): string =>
    `not restored: spec.configSource was changed since this rollout set it (now ${describeSource(now)}${holder === undefined ? '' : `, rollout ${holder}`})`,
  noRecord:
    "not restored: this rollout's status holds no record of the node's previous config source, so it is left as it is",
  deleted: 'the Node was deleted during the rollout',
  localOverride: (overrides: readonly { field: string; file: string }[]): string =>
    `the kubelet does not run the new config's ${overrides
      .slice(0, 3)
      .map((o) => `${o.field} (a local drop-in, ${o.file}, overrides it)`)
      .join(', ')}${overrides.length > 3 ? ` and ${overrides.length - 3} more fields` : ''}`,
  kubeletRestarted: (at: string): string =>
    `the kubelet restarted at ${at} without its node daemon restarting it (a crash) since the node was changed`,
};

/** Why a node the rollout counted no longer runs its config (status.degraded). */
export const degradedMessages = {
  notActive: (active: NodeConfigSource | null | undefined): string => {
    const cm = active?.configMap;
    const rv = cm?.resourceVersion === undefined ? '' : ` at resourceVersion ${cm.resourceVersion}`;
    return `the kubelet runs ${describeSource(active ?? null)}${rv}, not the rollout's config`;
  },
};

/** Why a node waits, unchanged, in condition and event messages. */
export const waitingMessages = {
  NotReady: 'is not Ready',
  HeartbeatStale: 'has a stale heartbeat (its Lease is not being renewed)',
} as const;

export const conditionReasons = {
  progressing: 'RolloutProgressing',
  paused: 'RolloutPaused',
  complete: 'RolloutSucceeded',
  halted: 'RolloutHalted',
  reverting: 'RolloutReverting',
  reverted: 'RolloutReverted',
  pending: 'RolloutPending',
  failures: 'FailureThresholdExceeded',
  conflict: 'Conflict',
  undo: 'Undo',
  deleting: 'RolloutDeleting',
  invalidSelector: 'InvalidSelector',
  configMapNotFound: 'ConfigMapNotFound',
  layerNotFound: 'LayerNotFound',
  renderFailed: 'RenderFailed',
  invalidSpec: 'InvalidSpec',
  nodesNotReady: 'NodesNotReady',
  incompatibleNodes: 'IncompatibleNodes',
  degraded: 'NodesLeftConfig',
  notDegraded: 'NodesRunConfig',
} as const;

export const conditionMessages = {
  progressing: (done: number, total: number): string => `${done} of ${total} nodes done`,
  paused: 'the rollout is paused: no node starts until it is resumed',
  complete: (succeeded: number, total: number, deleted: number): string =>
    `${succeeded} of ${total} nodes run the new config${deleted > 0 ? ` (${deleted} deleted during the rollout)` : ''}`,
  failures: (failed: number, maxFailures: number): string =>
    `${failed} nodes failed, more than maxFailures (${maxFailures})`,
  conflict: (node: string, other: string): string => `node ${node} is held by rollout ${other}, which has not finished`,
  undo: 'spec.revert is set: restoring every node this rollout changed',
  reverted: (restored: number, notRestored: number): string =>
    notRestored === 0
      ? 'every node this rollout changed is back on its previous config source'
      : `${restored} of ${restored + notRestored} nodes this rollout changed are back on their previous config source; ${notRestored} not (see status.nodes)`,
  invalidSelector: (err: string): string => `spec.nodeSelector is invalid: ${err}`,
  invalidOperator: (op: string): string => `${JSON.stringify(op)} is not a valid label selector operator`,
  configMapNotFound: (ns: string, name: string): string =>
    `ConfigMap ${ns}/${name} not found: no node starts until it exists`,
  layerNotFound: (ns: string, name: string): string =>
    `layer ConfigMap ${ns}/${name} not found: the layers cannot be rendered`,
  layerKeyNotFound: (ns: string, name: string, key: string): string =>
    `layer ConfigMap ${ns}/${name} has no key ${JSON.stringify(key)}: the layers cannot be rendered`,
  renderFailed: (layer: string, err: string): string =>
    `the layers cannot be rendered: ${layer === '' ? '' : `${layer}: `}${err}`,
  renderedConflict: (name: string): string =>
    `ConfigMap ${name} exists with other content than the rollout's config (it cannot be rendered or pinned there)`,
  notRendered: 'the layers have not been rendered',
  bothSources: 'spec.configSource and spec.layers are mutually exclusive: set exactly one',
  waiting: (done: number, total: number, waiting: readonly string[]): string =>
    `${done} of ${total} nodes done; waiting, unchanged, for Ready and a fresh heartbeat: ${waiting.join(', ')}`,
  nodesNotReady: (waiting: readonly string[], deadlineSeconds: number): string =>
    `no node can start: ${waiting.join(', ')} not Ready with a fresh heartbeat for more than ${deadlineSeconds}s; ` +
    'the rollout changes a waiting node once it is, and finishes once none is left in the selector',
  /** Appended to the complete message when selected nodes were left out for their kubelet version. */
  leftOut: (n: number): string =>
    n === 0 ? '' : `; ${nodeCount(n)} left out: their kubelet cannot run the config (status.incompatible)`,
  incompatibleNodes: (which: string): string =>
    `no node starts: the config does not suit the kubelet of some selected nodes (${which}); set spec.strategy.skipIncompatible to leave them out`,
  notFailed: 'no failure',
  degraded: (n: number, total: number, named: readonly { node: string; reason: string }[]): string =>
    `${n} of ${total} nodes no longer run the new config: ${named.map((d) => `${d.node} (${d.reason})`).join(', ')}${n > named.length ? ` and ${n - named.length} more` : ''} (status.degraded)`,
  notDegraded: 'every node the rollout holds runs its config',
  /** Appended to the complete message while nodes have left the config since. */
  degradedSince: (n: number): string => (n === 0 ? '' : `; ${nodeCount(n)} no longer (see the Degraded condition)`),
  notComplete: 'the rollout has not completed',
};

export const eventMessages = {
  started: (src: NodeConfigSource | null, targets: number): string =>
    `Rolling out ${describeSource(src)} to ${targets} nodes`,
  batchStarted: (batch: number, nodes: readonly string[]): string =>
    `${batch === 0 ? 'Canary batch' : `Batch ${batch}`} started: ${nodes.join(', ')}`,
  nodeSucceeded: (node: string, changed: boolean): string =>
    changed ? `Node ${node} runs the new config` : `Node ${node} already ran the new config`,
  nodeFailed: (node: string, reason: string, message: string): string => `Node ${node} failed (${reason}): ${message}`,
  nodeWaiting: (node: string, why: string): string =>
    `Node ${node} ${why}: it waits, unchanged, until it is Ready with a fresh heartbeat`,
  halted: (why: string): string => `Rollout halted: ${why}`,
  reverted: (restored: number, notRestored: number): string =>
    `Rollout reverted: ${nodeCount(restored)} restored to their previous config source${notRestored > 0 ? `, ${notRestored} not restored (see status.nodes)` : ''}`,
  succeeded: (succeeded: number, total: number, deleted: number): string =>
    `Rollout succeeded: ${succeeded} of ${total} nodes run the new config${deleted > 0 ? ` (${deleted} deleted during the rollout)` : ''}`,
  nodeDeleted: (node: string): string => `Node ${node} was deleted during the rollout`,
  nodeIncompatible: (node: string, version: string, reason: string): string =>
    `Node ${node} left out: its kubelet ${version} cannot run the config (${reason})`,
  nodeNotRestored: (node: string, message: string): string => `Node ${node} ${message}`,
  degraded: (n: number, fresh: readonly { node: string; reason: string; message: string }[]): string =>
    `${nodeCount(n)} no longer run the new config${fresh.length > 0 ? `: ${fresh.map((d) => `${d.node} (${d.reason}: ${d.message})`).join('; ')}` : ''}`,
  recovered: 'Every node the rollout holds runs its config again',
  released: (nodes: readonly string[]): string =>
    `Rollout deleted: ${nodeCount(nodes.length)} keep its config source and are no longer held by it: ${nodes.join(', ')}`,
};

export const logs = {
  nodeSet: (rollout: string, node: string, src: NodeConfigSource | null): string =>
    `rollout controller: rollout ${rollout}: node ${node} set to ${describeSource(src)}`,
  nodeReleased: (rollout: string, node: string, to: string | null): string =>
    `rollout controller: rollout ${rollout}: node ${node} ${to === null ? 'released' : `handed back to rollout ${to}`}`,
  finalized: (rollout: string): string => `rollout controller: rollout ${rollout}: deleted, its nodes let go`,
  phase: (rollout: string, from: string | undefined, to: string | undefined): string =>
    `rollout controller: rollout ${rollout}: ${from ?? 'new'} -> ${to ?? ''}`,
  rendered: (rollout: string, configMap: string): string =>
    `rollout controller: rollout ${rollout}: rendered its layers into ConfigMap ${CONFIG_NAMESPACE}/${configMap}`,
  pinned: (rollout: string, configMap: string): string =>
    `rollout controller: rollout ${rollout}: pinned its ConfigMap as the immutable ${CONFIG_NAMESPACE}/${configMap}`,
  renderedKept: (rollout: string, configMap: string): string =>
    `rollout controller: rollout ${rollout} deleted: ConfigMap ${CONFIG_NAMESPACE}/${configMap} it rendered is kept, nodes still use it`,
  retrying: (rollout: string, err: string): string => `rollout controller: rollout ${rollout}: ${err}; retrying`,
  informer: (path: string, err: string): string => `rollout controller: ${path}: ${err}`,
};

/** The assignment channel's own words (./assignment.ts, ./findchannel.ts). */
export const channelMessages = {
  nodeGone: (node: string): string => `node ${node} is gone: no NodeConfig is created for it`,
  fieldConflict: (node: string, conflict: string): string =>
    `node ${node} not assigned: its assignment is applied by another field manager (${conflict})`,
};

/** What the controller says when a record in a rollout's status is not borne out by what only it writes (./trust.ts). */
export const trustReasons = {
  /** A layered rollout whose status names a ConfigMap its layers were not rendered into. */
  renderedNotOurs: 'RenderedConfigMapNotVerified',
} as const;

export const trustMessages = {
  recordDisagrees:
    "not restored: this rollout's record of the node's previous config source is not the node's own revert record " +
    '(written by the rollout controller with the change), so it is left as it is',
  renderedNotOurs: (configMap: string): string =>
    `status.renderedConfigMap names ${configMap}, which is not a ConfigMap this rollout's layers were rendered into ` +
    '(immutable, owned by the rollout, named by the hash of its content): nothing is assigned from it',
  revertNotDecided:
    "status.phase Reverting was not the controller's decision (no spec.revert, no deletion, no more failed nodes " +
    'than maxFailures in its records): nothing is restored',
};

/** A node whose assignment another applier holds (./conflicts.ts). */
export const conflictMessages = {
  outlived: (deadlineSeconds: number, refusal: string): string =>
    `not assigned for ${deadlineSeconds}s (progressDeadlineSeconds): ${refusal}`,
};

/** An undo's node that does not report the restored config (./restore.ts). */
export const restoreMessages = {
  notActive: (deadlineSeconds: number): string =>
    `not restored: the previous config source was assigned but was not active, without error and Ready, within ${deadlineSeconds}s`,
  neverAcknowledged: (deadlineSeconds: number): string =>
    `not restored: the node did not acknowledge the assignment of its previous config source within ${deadlineSeconds}s (status.config.assigned unchanged)`,
};
