// What the plan takes (PlanInput) and what it hands back (Plan): the node assignments, the rollout's own patches, its
// status and its events. Types only.

import type { Lease, Node, NodeConfigSource } from '../../../api/types.js';
import type { Incompatibility } from '../../../nodepolicy/compat.js';
import type { KubeletReport } from '../../../api/dkc/nodeconfig.js';
import type {
  DegradedNode,
  NodeConfigRollout,
  Phase,
  PreviousRecord,
  RolloutStatus,
} from '../../../api/dkc/rollout.js';
import type { NodeConflict } from '../conflicts.js';

export interface PlanInput {
  rollout: NodeConfigRollout;
  /** Every node; the plan selects. */
  nodes: readonly Node[];
  /** The target ConfigMap's identity now; undefined when it does not exist (or the rollout resets to local config). */
  configMap: { uid: string; resourceVersion: string } | undefined;
  /** The other rollouts, for conflicts. */
  others: readonly NodeConfigRollout[];
  now: Date;
  /** The nodes' Leases in kube-node-lease, by node name: their heartbeats. A node without one has never heartbeated. */
  leases: Pick<ReadonlyMap<string, Lease>, 'get'>;
  /** When this controller started: soak time recorded before it went unobserved, and counts for nothing. */
  startedAt: Date;
  /**
   * A layered rollout's rendering, when the controller rendered it for this look: the rendered ConfigMap's name, or
   * why the layers cannot be rendered. Unused once status.renderedConfigMap is recorded (the rollout keeps to it).
   */
  rendered?: { name: string } | { failure: { reason: string; message: string } };
  /**
   * The nodes whose kubelet minor cannot run the target config, by node name (src/nodepolicy/compat.ts, judged by
   * the controller on the target's bytes); absent when every node can, or the target is not known yet. A selected
   * node among them that this rollout has not changed is never started.
   */
  incompatible?: ReadonlyMap<string, Incompatibility>;
  /**
   * Why the ConfigMap status.renderedConfigMap names is not the one this rollout's layers were rendered into
   * (./trust.ts renderedDistrust); absent when it is, or when the rollout is not layered.
   */
  renderedDistrust?: string;
  /** The nodes whose assignment another applier refused this rollout, since when (./conflicts.ts); absent: none. */
  conflicts?: ReadonlyMap<string, NodeConflict>;
  /**
   * Whether a ConfigMap reference names a copy some rollout made (./trust.ts isRolloutCopy): the one source a node's
   * own report may add to its revert record. Absent: none does.
   */
  rolloutCopy?: (ref: { namespace: string; name: string }) => boolean;
  /** Each node's daemon report (its NodeConfig's status.kubelet), by node name; absent where there are none. */
  kubelet?: Pick<ReadonlyMap<string, KubeletReport>, 'get'>;
  /** The fields the target config sets (./overrides.ts configFields), when the controller has read it. */
  targetFields?: ReadonlySet<string>;
}

/** The rollout that holds a node after an assignment, with its record of what the node ran before it changed it. */
export interface AssignmentHolder {
  rollout: string;
  /** Given to the node with the assignment as its guarded copy (../trust.ts), which an undo checks against. */
  record: PreviousRecord;
}

/**
 * What the plan assigns one node, in one write: the rollout that holds it from then on and the source it runs. A start
 * sets the rollout's source and names the rollout; letting go hands the node back to the rollout that held it before
 * (or to none), putting it back on a source or keeping the one it has. The channel turns it into its writes
 * (../apply.ts assignmentPatch).
 */
export interface NodeAssignment {
  node: string;
  /** Precondition: a node that changed since it was read is not written (409), and is looked at again. */
  resourceVersion: string;
  /** The rollout that holds the node after the write; null: none does, and the node carries no revert record. */
  holder: AssignmentHolder | null;
  /** The spec.configSource the write sets (null: the node's local config), or 'kept': the node keeps the one it has. */
  source: NodeConfigSource | null | 'kept';
}

/** A JSON merge patch of the rollout itself; the controller adds the resourceVersion it read as a precondition. */
export interface RolloutPatch {
  metadata: { annotations?: Record<string, string>; finalizers?: string[] | null };
  spec?: { paused: true };
}

export type EventReason =
  | 'RolloutStarted'
  | 'BatchStarted'
  | 'NodeSucceeded'
  | 'NodeFailed'
  | 'NodeWaiting'
  | 'NodeIncompatible'
  | 'NodeDeleted'
  | 'NodeNotRestored'
  | 'NodesReleased'
  | 'RolloutHalted'
  | 'RolloutReverted'
  | 'RolloutSucceeded'
  | 'StatusNotDecided'
  | 'NodesDegraded'
  | 'NodesRecovered';

export interface RolloutEvent {
  type: 'Normal' | 'Warning';
  reason: EventReason;
  message: string;
}

export interface Plan {
  /**
   * Written before the node assignments: the status with each node about to change recorded (still Pending) with what
   * it runs now. A crash after it loses nothing: the next look finds the changed nodes and knows what they ran.
   */
  intent?: RolloutStatus;
  /** The nodes' assignments, written after the intent, one write each. */
  assignments: NodeAssignment[];
  /** A merge patch of the rollout itself (pauseAfterCanary; the finalizer), applied after the nodes, before the status. */
  rolloutPatch?: RolloutPatch;
  /** The whole status to write; the controller skips the write when it equals the current one. */
  status: RolloutStatus;
  /** A merge patch of the rollout applied last: removing the finalizer of a deleted rollout, which then goes. */
  finalize?: RolloutPatch;
  events: RolloutEvent[];
  /** Look again after this many ms even if nothing changes (soak and deadline timers). */
  requeueAfterMs?: number;
}

export interface Outcome {
  phase: Phase;
  /** Why it failed, for the Failed condition; undefined keeps an earlier failure (or none). */
  failure?: { reason: string; message: string };
  /** A reason the rollout cannot progress although it is not finished (e.g. the ConfigMap is missing). */
  blocked?: { reason: string; message: string };
  /** Nodes held unchanged until they are Ready with a fresh heartbeat; `stalled` once nothing else can move for longer than the deadline. */
  waiting?: { nodes: string[]; stalled: boolean; deadlineSeconds: number } | undefined;
  /** Selected nodes left out for their kubelet version; undefined keeps the status's earlier list. */
  incompatible?: readonly Incompatibility[];
  /** Nodes recorded Succeeded that no longer run the config (./degraded.ts); none when undefined. */
  degraded?: readonly DegradedNode[];
}
