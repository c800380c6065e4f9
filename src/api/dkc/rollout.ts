// NodeConfigRollout (dkc.io/v1alpha1, deploy/crds/nodeconfigrollouts.dkc.io.yaml) as its controller writes it and
// everyone else reads it: the Node annotation that names the rollout holding a node, the finalizer, the event
// source, and the strategy's numbers. Pure: no I/O.

import type { KubeObject, NodeConfigSource, ObjectReference, OwnerReference, Time } from '../types.js';
import { formatTime } from '../../util/clock.js';

export const GROUP = 'dkc.io';
export const VERSION = 'v1alpha1';
export const KIND = 'NodeConfigRollout';
export const API_VERSION = `${GROUP}/${VERSION}`;
export const ROLLOUTS_PATH = `/apis/${API_VERSION}/nodeconfigrollouts`;
export const COMPONENT = 'dkc-rollout-controller';

/**
 * Written on a Node in the same patch that sets its spec.configSource: which rollout changed it. A hint for finding
 * the nodes a rollout holds, never a record of what to restore: the node itself, and anyone who may patch nodes,
 * can write its annotations.
 */
export const ROLLOUT_ANNOTATION = 'dkc.io/rollout';
/**
 * On the Node channel, the guarded copy of a node's revert record (JSON of NodeConfig's status.previous: the source the
 * node had before the rollout now holding it changed it, and the rollout that held it then), written in the same
 * patch as the change. dkc server lets only the rollout controller write it, as NodeConfig.status.previous on the
 * NodeConfig channel; an undo restores a node only when the rollout's own record agrees with it.
 */
export const REVERT_RECORD_ANNOTATION = 'dkc.io/revert-record';
/**
 * Where earlier controllers recorded a node's previous source. Node-writable, so it is never read; a patch of the
 * controller's removes it.
 */
export const LEGACY_PREVIOUS_SOURCE_ANNOTATION = 'dkc.io/previous-config-source';
/**
 * On every rollout the controller has started work on: a deleted rollout stays (with metadata.deletionTimestamp)
 * until the controller has restored, or released, every node it holds, and removes this.
 */
export const ROLLOUT_FINALIZER = 'dkc.io/release-nodes';
/**
 * Written on the rollout with spec.paused when pauseAfterCanary pauses it, in the same patch, so that a resumed
 * rollout (or a new leader) knows the pause already happened and does not pause again.
 */
export const PAUSED_AFTER_CANARY_ANNOTATION = 'dkc.io/paused-after-canary';

export type Phase = 'Pending' | 'Progressing' | 'Paused' | 'Succeeded' | 'Halted' | 'Reverting' | 'Reverted';
export type NodeState =
  'Pending' | 'InFlight' | 'Succeeded' | 'Failed' | 'Reverted' | 'Overridden' | 'Deleted' | 'NotRestored';
export type FailureReason =
  | 'ConfigError'
  | 'NotReady'
  | 'NotActive'
  | 'Overridden'
  | 'NoRecord'
  /** Another field manager applies the node's assignment, and did for longer than the progress deadline. */
  | 'NodeConflict'
  /** A node-local drop-in overrides a field of the config: the kubelet does not run it as rolled out. */
  | 'LocalOverride'
  /** The kubelet restarted, by no doing of its node daemon, after the node was changed. */
  | 'KubeletRestarted';
/** Why a node not yet changed waits: its Ready condition is not True, or its heartbeat (Lease) is stale. */
export type WaitingReason = 'NotReady' | 'HeartbeatStale';
export type FailurePolicy = 'Revert' | 'Halt';
export type IntOrString = number | string;

export interface LabelSelectorRequirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
  values?: string[];
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

export interface RolloutStrategy {
  canary?: IntOrString;
  maxUnavailable?: IntOrString;
  soakSeconds?: number;
  pauseAfterCanary?: boolean;
  /**
   * Leave out, and list in status.incompatible, the selected nodes whose kubelet minor cannot run the config (see
   * src/nodepolicy/compat.ts) instead of refusing the rollout at admission, or halting it before its first batch.
   */
  skipIncompatible?: boolean;
}

/** One layer of a layered rollout: a ConfigMap key holding a KubeletConfiguration (the first is the base). */
export interface LayerRef {
  configMap: { namespace: string; name: string; kubeletConfigKey: string };
}

export interface RolloutSpec {
  configSource?: NodeConfigSource | null;
  /** Instead of configSource: ConfigMaps rendered in order (drop-in merge) into one ConfigMap, which is rolled out. */
  layers?: LayerRef[];
  nodeSelector?: LabelSelector;
  strategy?: RolloutStrategy;
  progressDeadlineSeconds?: number;
  maxFailures?: number;
  failurePolicy?: FailurePolicy;
  paused?: boolean;
  revert?: boolean;
}

/** A ConfigMap reference as a record keeps it: `{}` is the node's local config (no spec.configSource). */
export interface RecordedSource {
  configMap?: { namespace: string; name: string; kubeletConfigKey: string };
}

/**
 * What a node ran, and which rollout held it, when this rollout changed it. Written to the rollout's status before
 * the node is patched, from the Node's spec (which only those allowed to assign config can change); an undo restores
 * exactly this, and nothing else.
 */
export interface PreviousRecord {
  configSource: RecordedSource;
  /** The rollout that held the node then (its dkc.io/rollout annotation); it gets the node back on an undo if it still claims it. */
  rollout?: string;
}

export interface NodeProgress {
  state: NodeState;
  batch?: number;
  /** When this rollout set the node's spec.configSource; absent for nodes it did not change. */
  updatedAt?: Time;
  /** Since when the node has held the new config, without error, Ready and heartbeating, as this controller saw it. */
  readySince?: Time;
  /** A Pending node that is held, unchanged, until it is Ready with a fresh heartbeat: why, and since when. */
  waitingReason?: WaitingReason;
  waitingSince?: Time;
  reason?: string;
  message?: string;
  /** Recorded before this rollout changes the node: see PreviousRecord. */
  previous?: PreviousRecord;
}

export interface RolloutFailure {
  node: string;
  reason: FailureReason;
  message: string;
}

/** A selected node left out because its kubelet minor cannot run the rollout's config. */
export interface IncompatibleNode {
  node: string;
  /** The kubelet minor the node reports, `1.30`. */
  kubeletVersion: string;
  /** What that kubelet lacks or refuses: `unknown field singleProcessOOMKill`, or its validation's words. */
  reason: string;
}

/** Why a node a rollout counted as running its config no longer does. */
export type DegradedReason = 'NotActive' | 'ConfigError' | 'LocalOverride';

/** A node recorded Succeeded, still held by the rollout, that no longer runs its config. */
export interface DegradedNode {
  node: string;
  reason: DegradedReason;
  message: string;
}

export interface RolloutCondition {
  type: 'Progressing' | 'Complete' | 'Failed' | 'Degraded';
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  /** The schema requires only type and status: a condition written by hand may lack its time. */
  lastTransitionTime?: Time;
}

export interface RolloutStatus {
  phase?: Phase;
  observedGeneration?: number;
  targetNodes?: number;
  updatedNodes?: number;
  succeededNodes?: number;
  failedNodes?: number;
  /** Nodes held, unchanged, because they are not Ready or their heartbeat is stale. */
  waitingNodes?: number;
  /** Selected nodes left out, unchanged, because their kubelet cannot run the config; never counted as failed. */
  incompatibleNodes?: number;
  incompatible?: IncompatibleNode[];
  /** A layered rollout's rendered ConfigMap in kube-system, once rendered; the rollout keeps to it from then on. */
  renderedConfigMap?: string;
  failures?: RolloutFailure[];
  /** Nodes recorded Succeeded, still held, that no longer run the config (judged at every look); absent until one has. */
  degradedNodes?: number;
  /** The first few of them by name (the count is of all). */
  degraded?: DegradedNode[];
  conditions?: RolloutCondition[];
  currentBatch?: number;
  startTime?: Time | null;
  completionTime?: Time | null;
  nodes?: Record<string, NodeProgress>;
}

export interface NodeConfigRollout extends KubeObject {
  spec?: RolloutSpec;
  status?: RolloutStatus;
}

/** Phases after which a rollout holds no node and changes nothing more (until an undo). */
const FINISHED: ReadonlySet<Phase> = new Set(['Succeeded', 'Halted', 'Reverted']);

export function isFinishedPhase(phase: Phase | undefined): boolean {
  return phase !== undefined && FINISHED.has(phase);
}

export function isFinished(r: NodeConfigRollout): boolean {
  return isFinishedPhase(r.status?.phase);
}

/** What the controller still has to do for `r`: anything unfinished, or an undo not yet carried out. */
export function needsWork(r: NodeConfigRollout): boolean {
  if (r.spec?.revert === true) return r.status?.phase !== 'Reverted';
  return !isFinished(r);
}

/** A NodeConfigRollout to create: `name` with `spec`. */
export function newRollout(name: string, spec: RolloutSpec): NodeConfigRollout {
  return { apiVersion: API_VERSION, kind: KIND, metadata: { name }, spec };
}

/** The reference events about `r` carry. */
export function rolloutReference(r: NodeConfigRollout): ObjectReference {
  const ref: ObjectReference = { kind: KIND, apiVersion: API_VERSION, name: r.metadata.name ?? '' };
  if (r.metadata.uid !== undefined) ref.uid = r.metadata.uid;
  if (r.metadata.resourceVersion !== undefined) ref.resourceVersion = r.metadata.resourceVersion;
  return ref;
}

/**
 * The owner reference a rollout's rendered ConfigMap carries, as a controller marks what it made: deleting the
 * rollout has the garbage collector delete the ConfigMap.
 */
export function rolloutOwnerReference(r: NodeConfigRollout): OwnerReference {
  return {
    apiVersion: API_VERSION,
    kind: KIND,
    name: r.metadata.name ?? '',
    uid: r.metadata.uid ?? '',
    controller: true,
    blockOwnerDeletion: true,
  };
}

/**
 * An int-or-string count against `total`: "N%" is rounded up, as the issue defines; a bare number is taken as it is.
 * Anything unreadable counts as `fallback` (the schema refuses such values, so only a hand-made object gets here).
 */
export function scaledCount(value: IntOrString | undefined, total: number, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value === 'number') return Number.isInteger(value) && value >= 0 ? value : fallback;
  const m = /^(0|[1-9][0-9]*)(%?)$/.exec(value);
  if (!m) return fallback;
  const n = Number(m[1]);
  return m[2] === '%' ? Math.ceil((n * total) / 100) : n;
}

/** Whether `r` is being deleted (its finalizer keeps it until the controller has let go of its nodes). */
export function isDeleting(r: NodeConfigRollout): boolean {
  return typeof r.metadata.deletionTimestamp === 'string' && r.metadata.deletionTimestamp !== '';
}

export function hasFinalizer(r: NodeConfigRollout): boolean {
  return (r.metadata.finalizers ?? []).includes(ROLLOUT_FINALIZER);
}

/** metav1.Time of an instant in milliseconds: whole seconds, rounded down. */
export function formatTimeFloor(ms: number): string {
  return formatTime(new Date(Math.floor(ms / 1000) * 1000));
}

/** Whole seconds rounded up, for the start of a soak or a deadline: each lasts at least as long as asked. */
export function formatTimeCeil(ms: number): string {
  return formatTime(new Date(Math.ceil(ms / 1000) * 1000));
}

/** spec.configSource as it goes onto a Node: `{}` and absent both mean the node's local config (null). */
export function desiredSource(spec: RolloutSpec | undefined): NodeConfigSource | null {
  const cm = spec?.configSource?.configMap;
  if (!cm) return null;
  return { configMap: { namespace: cm.namespace, name: cm.name, kubeletConfigKey: cm.kubeletConfigKey } };
}

/** A source as a record keeps it (`{}` for local config). */
export function recordSource(src: NodeConfigSource | null): RecordedSource {
  const cm = src?.configMap;
  return cm ? { configMap: { namespace: cm.namespace, name: cm.name, kubeletConfigKey: cm.kubeletConfigKey } } : {};
}

/** A recorded source as it goes back onto a Node; undefined when the record is not one (a hand-made status). */
export function sourceOfRecord(rec: RecordedSource | undefined): NodeConfigSource | null | undefined {
  if (rec === null || typeof rec !== 'object') return undefined;
  const cm = rec.configMap;
  if (cm === undefined) return null;
  if (cm === null || typeof cm !== 'object') return undefined;
  const { namespace, name, kubeletConfigKey } = cm;
  if (typeof namespace !== 'string' || typeof name !== 'string' || typeof kubeletConfigKey !== 'string')
    return undefined;
  if (namespace === '' || name === '' || kubeletConfigKey === '') return undefined;
  return { configMap: { namespace, name, kubeletConfigKey } };
}
