// What the DaemonSet controller does in one sync (k8s:pkg/controller/daemon/daemon_controller.go syncDaemonSet,
// manage, podsShouldBeOnNode, syncNodes; update.go rollingUpdate with maxSurge 0): which orphans it adopts and
// which Pods it releases, on which nodes it creates a daemon Pod and which Pods it deletes (on nodes that should
// not run one, failed or finished ones, all but the oldest of duplicates, unbound ones for nodes that are gone),
// and, when that leaves nothing to do, which out-of-date Pods the rolling update replaces. Pure: the host lists,
// patches, creates and deletes, keeps kube's expectations, and the backoff of nodes whose daemon Pod failed.

import {
  DAEMONSET_TEMPLATE_GENERATION_ANNOTATION,
  CONTROLLER_REVISION_HASH_LABEL,
  POD_TEMPLATE_GENERATION_LABEL,
  type DaemonSet,
} from '../../api/apps.js';
import { isPodAvailable, isPodTerminal, isTerminating, timeMs } from '../../api/pods.js';
import type { Node } from '../../api/types.js';
import { claimBySelector } from '../workload/controllerref.js';
import { slowStartBatches } from '../workload/slowstart.js';
import { logs } from './messages.js';
import { nodeShouldRunDaemonPod, targetNodeName, type DaemonPodView } from './placement.js';
import { rollingUpdateBudget } from './rollingupdate.js';

/** daemon.BurstReplicas: the most Pods one sync creates or deletes. */
export const BURST_REPLICAS = 250;

export interface DaemonSetSyncInput {
  ds: DaemonSet;
  nodes: readonly Node[];
  /** Every Pod in the DaemonSet's namespace. */
  pods: readonly DaemonPodView[];
  /** The controller-revision-hash of the DaemonSet's current ControllerRevision. */
  hash: string;
  nowMs: number;
  /** Nodes still in the backoff after their last failed daemon Pod was deleted (failedPodsBackoff). */
  failedBackoff?: ReadonlySet<string>;
}

export interface DaemonSetDecision {
  /** Set when the selector or the rolling update cannot be read: nothing else is done. */
  error?: string;
  /** What the controller logs, kube's words. */
  notes: string[];
  adopt: DaemonPodView[];
  release: DaemonPodView[];
  /** The DaemonSet's Pods by the node they run on or are bound for: what its status counts. */
  byNode: Map<string, DaemonPodView[]>;
  /** Nodes to create a daemon Pod on, and the slow-start batches to create them in. */
  create: string[];
  batches: number[];
  delete: DaemonPodView[];
  /** Failed Pods among `delete`: each gets a FailedDaemonPod event and starts its node's backoff. */
  failed: { pod: DaemonPodView; node: string }[];
  /** Nodes whose failed Pod waits for the backoff: sync again when it ends. */
  backingOff: string[];
}

const nothing = (): DaemonSetDecision => ({
  notes: [],
  adopt: [],
  release: [],
  byNode: new Map(),
  create: [],
  batches: [],
  delete: [],
  failed: [],
  backingOff: [],
});

/** GetTemplateGeneration: the generation kube-apiserver keeps in an annotation; undefined when absent or unreadable. */
export function templateGeneration(ds: DaemonSet): number | undefined {
  const v = ds.metadata.annotations?.[DAEMONSET_TEMPLATE_GENERATION_ANNOTATION];
  return v !== undefined && /^-?\d+$/.test(v) ? Number(v) : undefined;
}

/** IsPodUpdated: the Pod carries the current hash, or the current template generation. */
export function isPodUpdated(pod: DaemonPodView, hash: string, generation: number | undefined): boolean {
  const labels = pod.metadata.labels ?? {};
  const generationMatches = generation !== undefined && labels[POD_TEMPLATE_GENERATION_LABEL] === String(generation);
  return (hash !== '' && labels[CONTROLLER_REVISION_HASH_LABEL] === hash) || generationMatches;
}

/** podByCreationTimestampAndPhase: bound before unbound, then the oldest, then by name. */
export function oldestFirst(a: DaemonPodView, b: DaemonPodView): number {
  const boundA = !!a.spec?.nodeName;
  const boundB = !!b.spec?.nodeName;
  if (boundA !== boundB) return boundA ? -1 : 1;
  const ta = timeMs(a.metadata.creationTimestamp) ?? 0;
  const tb = timeMs(b.metadata.creationTimestamp) ?? 0;
  if (ta !== tb) return ta - tb;
  const na = a.metadata.name ?? '';
  const nb = b.metadata.name ?? '';
  return na < nb ? -1 : na > nb ? 1 : 0;
}

/** getNodesToDaemonPods: terminal Pods being deleted are gone for the controller; a Pod with no target is skipped. */
export function groupByNode(pods: readonly DaemonPodView[]): Map<string, DaemonPodView[]> {
  const out = new Map<string, DaemonPodView[]>();
  for (const pod of pods) {
    if (isPodTerminal(pod) && isTerminating(pod)) continue;
    const node = targetNodeName(pod);
    if (node === undefined) continue;
    out.set(node, [...(out.get(node) ?? []), pod]);
  }
  return out;
}

export function decideDaemonSet(input: DaemonSetSyncInput): DaemonSetDecision {
  const { ds } = input;
  const out = nothing();
  // A DaemonSet being deleted is left to the garbage collector: kube's sync returns before it claims anything.
  if (ds.metadata.deletionTimestamp) return out;
  const claiming = claimBySelector(ds, input.pods, (why) =>
    logs.badSelector(ds.metadata.namespace ?? '', ds.metadata.name ?? '', why),
  );
  if ('error' in claiming) return { ...out, error: claiming.error };
  const { claimed } = claiming;
  out.adopt = claimed.adopt;
  out.release = claimed.release;
  out.byNode = groupByNode(claimed.owned);
  manage(input, out);
  if (out.create.length === 0 && out.delete.length === 0 && isRollingUpdate(ds)) rollingUpdate(input, out);
  return out;
}

export const isRollingUpdate = (ds: DaemonSet): boolean =>
  (ds.spec.updateStrategy?.type ?? 'RollingUpdate') === 'RollingUpdate';

/** manage: what each node needs, then syncNodes' burst limit. */
function manage(input: DaemonSetSyncInput, out: DaemonSetDecision): void {
  const names = new Set<string>();
  for (const node of input.nodes) {
    const name = node.metadata.name ?? '';
    names.add(name);
    podsShouldBeOnNode(input, name, nodeShouldRunDaemonPod(node, input.ds.spec.template), out);
  }
  for (const [node, pods] of out.byNode) {
    if (names.has(node)) continue;
    out.delete.push(...pods.filter((p) => !p.spec?.nodeName && !isTerminating(p)));
  }
  out.create = out.create.slice(0, BURST_REPLICAS);
  out.batches = slowStartBatches(out.create.length);
  out.delete = out.delete.slice(0, BURST_REPLICAS);
}

function podsShouldBeOnNode(
  input: DaemonSetSyncInput,
  node: string,
  placement: { shouldRun: boolean; shouldContinueRunning: boolean },
  out: DaemonSetDecision,
): void {
  const pods = out.byNode.get(node);
  if (placement.shouldRun && pods === undefined) {
    out.create.push(node);
  } else if (placement.shouldContinueRunning && pods !== undefined) {
    const running: DaemonPodView[] = [];
    for (const pod of pods) {
      if (isTerminating(pod)) continue;
      const phase = pod.status?.phase;
      if (phase === 'Failed') {
        if (input.failedBackoff?.has(node)) {
          out.backingOff.push(node);
          continue;
        }
        out.failed.push({ pod, node });
        out.delete.push(pod);
      } else if (phase === 'Succeeded') {
        out.delete.push(pod);
      } else {
        running.push(pod);
      }
    }
    // Without surge a node keeps one daemon Pod: the oldest.
    out.delete.push(...running.sort(oldestFirst).slice(1));
  } else if (!placement.shouldContinueRunning && pods !== undefined) {
    out.delete.push(...pods.filter((p) => !isTerminating(p)));
  }
}

/** findUpdatedPodsOnNode: the new and the old Pod of a node, undefined when it has more than one of either. */
function updatedAndOld(
  pods: readonly DaemonPodView[],
  hash: string,
  generation: number | undefined,
): { updated?: DaemonPodView; old?: DaemonPodView } | undefined {
  const out: { updated?: DaemonPodView; old?: DaemonPodView } = {};
  for (const pod of pods) {
    if (isTerminating(pod)) continue;
    const key = isPodUpdated(pod, hash, generation) ? 'updated' : 'old';
    if (out[key] !== undefined) return undefined;
    out[key] = pod;
  }
  return out;
}

/** rollingUpdate without surge: delete just enough old Pods to stay within maxUnavailable; manage recreates them. */
function rollingUpdate(input: DaemonSetSyncInput, out: DaemonSetDecision): void {
  const { ds, hash, nowMs } = input;
  const byNode = new Map(out.byNode);
  let desired = 0;
  for (const node of input.nodes) {
    if (!nodeShouldRunDaemonPod(node, ds.spec.template).shouldRun) continue;
    desired++;
    const name = node.metadata.name ?? '';
    if (!byNode.has(name)) byNode.set(name, []);
  }
  const budget = rollingUpdateBudget(ds, desired);
  if (budget.error !== undefined) {
    out.error = budget.error;
    return;
  }
  out.notes.push(...budget.notes);
  const generation = templateGeneration(ds);
  const minReady = ds.spec.minReadySeconds ?? 0;
  let unavailable = 0;
  const replace: DaemonPodView[] = [];
  const candidates: DaemonPodView[] = [];
  for (const name of [...byNode.keys()].sort()) {
    const found = updatedAndOld(byNode.get(name)!, hash, generation);
    if (found === undefined || (found.updated === undefined) === (found.old === undefined)) unavailable++;
    else if (found.updated !== undefined) unavailable += isPodAvailable(found.updated, minReady, nowMs) ? 0 : 1;
    else if (!isPodAvailable(found.old!, minReady, nowMs)) replace.push(found.old!);
    else candidates.push(found.old!);
  }
  // kube stops collecting candidates once the budget is used up; taking the first `room` of them is the same.
  const room = Math.min(Math.max(0, budget.maxUnavailable - unavailable), candidates.length);
  out.delete = [...replace, ...candidates.slice(0, room)].slice(0, BURST_REPLICAS);
}
