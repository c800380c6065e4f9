// What the Deployment controller does in one sync (k8s:pkg/controller/deployment: deployment_controller.go
// syncDeployment, sync.go, rolling.go, recreate.go), from the Deployment, the ReplicaSets of its namespace and
// (for Recreate) the Pods: which ReplicaSets it adopts or releases, creates, rescales or deletes, the revision
// annotation it gives the Deployment, the events it records, and the status it writes. Pure: the host does the
// writes, in order (create, updates, deletes, then the status), and syncs again on any change.

import {
  DESIRED_REPLICAS_ANNOTATION,
  MAX_REPLICAS_ANNOTATION,
  POD_TEMPLATE_HASH_LABEL,
  REVISION_ANNOTATION,
  type Deployment,
  type DeploymentStatus,
  type ReplicaSet,
} from '../../api/apps.js';
import { isPodTerminal, type PodView } from '../../api/pods.js';
import { deepEqual } from '../../api/equal.js';
import { objectSelectorRequirements } from '../../api/selectors.js';
import { formatTime } from '../../util/clock.js';
import { errorMessage } from '../../util/errors.js';
import { claim, newControllerRef } from '../workload/controllerref.js';
import { copyJson } from '../workload/podtemplate.js';
import { computeHash } from '../workload/templatehash.js';
import { messages, PROGRESSING, reasons } from './messages.js';
import * as u from './replicasets.js';
import { calculateStatus, getCondition, newCondition, rolloutStatus, setCondition } from './status.js';

export interface DeploymentSyncInput {
  deployment: Deployment;
  /** Every ReplicaSet in the Deployment's namespace. */
  replicaSets: readonly ReplicaSet[];
  /** The Pods of the namespace; only Recreate looks at them (no new Pods while old ones run). */
  pods?: readonly PodView[];
  nowMs: number;
}

export interface ReplicaSetScale {
  rs: ReplicaSet;
  /** The size before, when the size changes (else only annotations or minReadySeconds do). */
  from?: number;
}

export interface DeploymentDecision {
  /** Set when the Deployment cannot be worked on (its selector or fenceposts do not read): nothing else is done. */
  error?: string;
  adopt: ReplicaSet[];
  release: ReplicaSet[];
  /** The new ReplicaSet to create (named <deployment>-<hash>). */
  create?: ReplicaSet;
  /** ReplicaSets to update as given (PUT), in this order. */
  update: ReplicaSetScale[];
  delete: ReplicaSet[];
  /** The Deployment's revision annotation, when it changes. */
  revision?: string;
  /** Normal events (reason ScalingReplicaSet) on the Deployment. */
  events: string[];
  status: DeploymentStatus;
  /** Whether status differs from what the Deployment carries. */
  statusChanged: boolean;
  requeueAfterSeconds?: number;
}

/** The state of one sync: copies the steps change, and what they did. */
interface Work {
  d: Deployment;
  rss: ReplicaSet[];
  newRS: ReplicaSet | undefined;
  old: ReplicaSet[];
  out: DeploymentDecision;
  nowMs: number;
  nowIso: string;
}

function emptyDecision(d: Deployment): DeploymentDecision {
  const status = d.status ?? {};
  return { adopt: [], release: [], update: [], delete: [], events: [], status, statusChanged: false };
}

export function decideDeployment(input: DeploymentSyncInput): DeploymentDecision {
  const original = input.deployment;
  const d = copyJson(original);
  d.status ??= {};
  let w: Work;
  try {
    u.fenceposts(d);
    const selector = objectSelectorRequirements(d.spec.selector);
    const owner = {
      uid: d.metadata.uid ?? '',
      namespace: d.metadata.namespace ?? '',
      deleting: !!d.metadata.deletionTimestamp,
    };
    const claimed = claim(owner, selector, input.replicaSets);
    const out = { ...emptyDecision(original), adopt: claimed.adopt, release: claimed.release };
    w = {
      d,
      rss: claimed.owned.map(copyJson),
      newRS: undefined,
      old: [],
      out,
      nowMs: input.nowMs,
      nowIso: formatTime(new Date(input.nowMs)),
    };
  } catch (e) {
    const out = emptyDecision(original);
    out.error = messages.badSelector(d.metadata.namespace ?? '', d.metadata.name ?? '', errorMessage(e));
    return out;
  }
  sync(w, input.pods ?? []);
  w.out.statusChanged = !deepEqual(original.status ?? {}, w.out.status);
  return w.out;
}

function sync(w: Work, pods: readonly PodView[]): void {
  const d = w.d;
  if (d.metadata.deletionTimestamp) return statusOnly(w);
  pausedConditions(w);
  if (d.spec.paused) return scaleAndClean(w);
  if (isScalingEvent(w)) return scaleAndClean(w);
  if (u.isRollingUpdate(d)) return rolloutRolling(w);
  return rolloutRecreate(w, pods);
}

function statusOnly(w: Work): void {
  resolveReplicaSets(w, false);
  finishPlain(w);
}

/** The status of a sync that only scales (syncDeploymentStatus): no progress estimate. */
function finishPlain(w: Work): void {
  w.out.status = calculateStatus(w.d, all(w), w.newRS, w.nowIso);
}

function finishRollout(w: Work): void {
  const r = rolloutStatus(w.d, all(w), w.newRS, w.nowMs, w.nowIso);
  w.out.status = r.status;
  if (r.requeueAfterSeconds !== undefined) w.out.requeueAfterSeconds = r.requeueAfterSeconds;
}

const all = (w: Work): ReplicaSet[] => (w.newRS ? [...w.old, w.newRS] : [...w.old]);

/** checkPausedConditions: Progressing Unknown DeploymentPaused / DeploymentResumed, unless timed out. */
function pausedConditions(w: Work): void {
  const { d } = w;
  if (!u.hasProgressDeadline(d)) return;
  const cond = getCondition(d.status!, PROGRESSING);
  if (cond?.reason === reasons.progressDeadlineExceeded) return;
  const pausedNoted = cond?.reason === reasons.deploymentPaused;
  if (d.spec.paused && !pausedNoted) {
    setCondition(d.status!, newCondition(PROGRESSING, 'Unknown', reasons.deploymentPaused, messages.paused, w.nowIso));
  } else if (!d.spec.paused && pausedNoted) {
    setCondition(
      d.status!,
      newCondition(PROGRESSING, 'Unknown', reasons.deploymentResumed, messages.resumed, w.nowIso),
    );
  }
}

/** isScalingEvent: an active ReplicaSet was sized for another replica count. */
function isScalingEvent(w: Work): boolean {
  resolveReplicaSets(w, false);
  const want = String(u.desired(w.d));
  return all(w).some((rs) => {
    if (!u.isActive(rs)) return false;
    const noted = rs.metadata.annotations?.[DESIRED_REPLICAS_ANNOTATION];
    return noted !== undefined && /^-?\d+$/.test(noted) && noted !== want;
  });
}

// ---- the new ReplicaSet -----------------------------------------------------------------------

/** getAllReplicaSetsAndSyncRevision: splits new from old and, when asked, creates the new one. */
function resolveReplicaSets(w: Work, createIfMissing: boolean): void {
  const found = u.findNew(w.d, w.rss);
  w.newRS = found;
  w.old = w.rss.filter((rs) => rs !== found);
  const newRevision = Math.max(0, ...w.old.map(u.revision)) + 1;
  if (found) return syncExistingNew(w, found, newRevision);
  if (createIfMissing && !w.out.create) createNew(w, newRevision);
}

function syncExistingNew(w: Work, rs: ReplicaSet, newRevision: number): void {
  const { d } = w;
  const annotated = u.setNewReplicaSetAnnotations(d, rs, newRevision, true);
  const minReady = d.spec.minReadySeconds ?? 0;
  if (annotated || (rs.spec.minReadySeconds ?? 0) !== minReady) {
    rs.spec.minReadySeconds = minReady;
    recordUpdate(w, rs, undefined);
    return;
  }
  setRevision(w, rs.metadata.annotations?.[REVISION_ANNOTATION] ?? '');
  if (u.hasProgressDeadline(d) && !getCondition(d.status!, PROGRESSING)) {
    const msg = messages.found(rs.metadata.name ?? '');
    setCondition(d.status!, newCondition(PROGRESSING, 'True', reasons.foundNewReplicaSet, msg, w.nowIso));
  }
}

function setRevision(w: Work, revision: string): void {
  const current = w.d.metadata.annotations?.[REVISION_ANNOTATION];
  if (current === revision) return;
  (w.d.metadata.annotations ??= {})[REVISION_ANNOTATION] = revision;
  w.out.revision = revision;
}

/** The ReplicaSet a Deployment's template gets: `<deployment>-<hash>`, the hash in its selector and labels. */
export function newReplicaSetFor(d: Deployment): ReplicaSet {
  const template = copyJson(d.spec.template);
  const hash = computeHash(d.spec.template, d.status?.collisionCount);
  const labels = { ...(template.metadata?.labels ?? {}), [POD_TEMPLATE_HASH_LABEL]: hash };
  template.metadata = { ...(template.metadata ?? {}), labels };
  const selector = copyJson(d.spec.selector);
  selector.matchLabels = { ...(selector.matchLabels ?? {}), [POD_TEMPLATE_HASH_LABEL]: hash };
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name: `${d.metadata.name ?? ''}-${hash}`,
      namespace: d.metadata.namespace ?? '',
      ownerReferences: [newControllerRef('apps/v1', 'Deployment', d)],
      labels: { ...labels },
    },
    spec: { replicas: 0, minReadySeconds: d.spec.minReadySeconds ?? 0, selector, template },
  };
}

function createNew(w: Work, newRevision: number): void {
  const { d } = w;
  const rs = newReplicaSetFor(d);
  rs.spec.replicas = newRSReplicas(d, [...w.old, rs], rs);
  u.setNewReplicaSetAnnotations(d, rs, newRevision, false);
  w.out.create = rs;
  w.newRS = rs;
  const name = rs.metadata.name ?? '';
  if (u.replicasOf(rs) > 0) w.out.events.push(messages.scaledNew(name, u.replicasOf(rs)));
  setRevision(w, String(newRevision));
  if (u.hasProgressDeadline(d)) {
    setCondition(
      d.status!,
      newCondition(PROGRESSING, 'True', reasons.newReplicaSetCreated, messages.created(name), w.nowIso),
    );
  }
}

/** NewRSNewReplicas: how big the new ReplicaSet may be now. */
export function newRSReplicas(d: Deployment, allRSs: readonly ReplicaSet[], newRS: ReplicaSet): number {
  if (!u.isRollingUpdate(d)) return u.desired(d);
  const maxTotal = u.desired(d) + u.fenceposts(d).maxSurge;
  const current = u.sumReplicas(allRSs);
  if (current >= maxTotal) return u.replicasOf(newRS);
  return u.replicasOf(newRS) + Math.min(maxTotal - current, u.desired(d) - u.replicasOf(newRS));
}

// ---- scaling ----------------------------------------------------------------------------------

function recordUpdate(w: Work, rs: ReplicaSet, from: number | undefined): void {
  if (rs === w.out.create) return;
  const seen = w.out.update.find((x) => x.rs === rs);
  if (!seen) w.out.update.push(from === undefined ? { rs } : { rs, from });
  else if (from !== undefined && seen.from === undefined) seen.from = from;
}

/** scaleReplicaSet: the size and the replicas annotations; whether the size changed. */
function scaleTo(w: Work, rs: ReplicaSet, to: number, op?: 'up' | 'down'): boolean {
  const from = u.replicasOf(rs);
  const max = u.desired(w.d) + u.maxSurge(w.d);
  const annotate = u.replicasAnnotationsNeedUpdate(rs, u.desired(w.d), max);
  if (from === to && !annotate) return false;
  rs.spec.replicas = to;
  u.setReplicasAnnotations(rs, u.desired(w.d), max);
  recordUpdate(w, rs, from !== to ? from : undefined);
  if (from === to) return false;
  w.out.events.push(messages.scaled(op ?? (from < to ? 'up' : 'down'), rs.metadata.name ?? '', to, from));
  return true;
}

/** sync: scale (proportionally when rolling), clean history when paused, plain status. */
function scaleAndClean(w: Work): void {
  resolveReplicaSets(w, false);
  scale(w);
  if (w.d.spec.paused) cleanup(w);
  finishPlain(w);
}

function activeOrLatest(w: Work): ReplicaSet | undefined {
  const active = all(w).filter(u.isActive);
  if (active.length === 1) return active[0];
  if (active.length > 1) return undefined;
  return w.newRS ?? [...w.old].sort(u.byCreation).at(-1);
}

function scale(w: Work): void {
  const { d } = w;
  const only = activeOrLatest(w);
  if (only) {
    if (u.replicasOf(only) !== u.desired(d)) scaleTo(w, only, u.desired(d));
    return;
  }
  if (u.isSaturated(d, w.newRS)) {
    for (const rs of w.old.filter(u.isActive)) scaleTo(w, rs, 0);
    return;
  }
  if (u.isRollingUpdate(d)) proportionalScale(w);
}

/** The proportional part of scale(): extra (or fewer) replicas spread by each ReplicaSet's share. */
function proportionalScale(w: Work): void {
  const { d } = w;
  const active = all(w).filter(u.isActive);
  const allowed = u.desired(d) > 0 ? u.desired(d) + u.maxSurge(d) : 0;
  const toAdd = allowed - u.sumReplicas(active);
  const op = toAdd > 0 ? 'up' : 'down';
  active.sort(toAdd > 0 ? u.bySizeNewer : u.bySizeOlder);
  let added = 0;
  const sizes = active.map((rs) => {
    if (toAdd === 0) return u.replicasOf(rs);
    const p = proportion(d, rs, toAdd, added);
    added += p;
    return u.replicasOf(rs) + p;
  });
  if (toAdd !== 0 && sizes.length > 0) sizes[0] = Math.max(0, sizes[0]! + toAdd - added);
  active.forEach((rs, i) => scaleTo(w, rs, sizes[i]!, toAdd === 0 ? undefined : op));
}

/** GetReplicaSetProportion / getReplicaSetFraction, with Go's round-half-away-from-zero. */
function proportion(d: Deployment, rs: ReplicaSet, toAdd: number, added: number): number {
  const size = u.replicasOf(rs);
  if (size === 0 || toAdd === 0 || toAdd === added) return 0;
  let fraction: number;
  if (u.desired(d) === 0) fraction = -size;
  else {
    const noted = Number(rs.metadata.annotations?.[MAX_REPLICAS_ANNOTATION] ?? '');
    const before = Number.isInteger(noted) && noted > 0 ? noted : (d.status?.replicas ?? 0);
    fraction = before === 0 ? 0 : Math.floor((size * (u.desired(d) + u.maxSurge(d))) / before + 0.5) - size;
  }
  const allowed = toAdd - added;
  return toAdd > 0 ? Math.min(fraction, allowed) : Math.max(fraction, allowed);
}

/** cleanupDeployment: old ReplicaSets beyond revisionHistoryLimit, lowest revision first, if fully scaled down. */
function cleanup(w: Work): void {
  const cleanable = w.old.filter((rs) => !rs.metadata.deletionTimestamp);
  const diff = cleanable.length - u.revisionHistoryLimit(w.d);
  if (diff <= 0) return;
  for (const rs of cleanable.sort(u.byRevision).slice(0, diff)) {
    if ((rs.status?.replicas ?? 0) !== 0 || u.replicasOf(rs) !== 0) continue;
    if ((rs.metadata.generation ?? 0) > (rs.status?.observedGeneration ?? 0)) continue;
    w.out.delete.push(rs);
  }
}

// ---- strategies -------------------------------------------------------------------------------

function rolloutRolling(w: Work): void {
  resolveReplicaSets(w, true);
  if (reconcileNew(w) || reconcileOld(w)) return finishRollout(w);
  if (isCompleteNow(w)) cleanup(w);
  finishRollout(w);
}

/** DeploymentComplete on the status the Deployment carries (kube checks d.Status, not the one it computes). */
const isCompleteNow = (w: Work): boolean => {
  const s = w.d.status ?? {};
  const n = u.desired(w.d);
  return (
    s.updatedReplicas === n &&
    s.replicas === n &&
    s.availableReplicas === n &&
    (s.observedGeneration ?? 0) >= (w.d.metadata.generation ?? 0)
  );
};

function reconcileNew(w: Work): boolean {
  const rs = w.newRS!;
  const want = u.desired(w.d);
  if (u.replicasOf(rs) === want) return false;
  if (u.replicasOf(rs) > want) return scaleTo(w, rs, want);
  return scaleTo(w, rs, newRSReplicas(w.d, all(w), rs));
}

function reconcileOld(w: Work): boolean {
  const old = w.old.filter(u.isActive);
  if (u.sumReplicas(old) === 0) return false;
  const newRS = w.newRS!;
  const minAvailable = u.desired(w.d) - u.maxUnavailable(w.d);
  const newUnavailable = u.replicasOf(newRS) - (newRS.status?.availableReplicas ?? 0);
  const maxScaledDown = u.sumReplicas(all(w)) - minAvailable - newUnavailable;
  if (maxScaledDown <= 0) return false;
  const cleaned = cleanupUnhealthy(w, old, maxScaledDown);
  const scaled = scaleDownOld(w, old, minAvailable);
  return cleaned + scaled > 0;
}

/** cleanupUnhealthyReplicas: scale old ReplicaSets down by their unavailable Pods first, oldest first. */
function cleanupUnhealthy(w: Work, old: ReplicaSet[], max: number): number {
  let total = 0;
  for (const rs of old.sort(u.byCreation)) {
    if (total >= max) break;
    const size = u.replicasOf(rs);
    const available = rs.status?.availableReplicas ?? 0;
    if (size === 0 || size === available) continue;
    const n = Math.min(max - total, size - available);
    scaleTo(w, rs, size - n);
    total += n;
  }
  return total;
}

/** scaleDownOldReplicaSetsForRollingUpdate: take old Pods away while more than minAvailable are available. */
function scaleDownOld(w: Work, old: ReplicaSet[], minAvailable: number): number {
  const available = u.sumStatus(all(w), 'availableReplicas');
  if (available <= minAvailable) return 0;
  const budget = available - minAvailable;
  let total = 0;
  for (const rs of old.sort(u.byCreation)) {
    if (total >= budget) break;
    if (u.replicasOf(rs) === 0) continue;
    const n = Math.min(u.replicasOf(rs), budget - total);
    scaleTo(w, rs, u.replicasOf(rs) - n);
    total += n;
  }
  return total;
}

function rolloutRecreate(w: Work, pods: readonly PodView[]): void {
  resolveReplicaSets(w, false);
  let scaledDown = false;
  for (const rs of w.old.filter(u.isActive)) if (scaleTo(w, rs, 0)) scaledDown = true;
  if (scaledDown || oldPodsRunning(w, pods)) return finishRollout(w);
  if (!w.newRS) resolveReplicaSets(w, true);
  scaleTo(w, w.newRS!, u.desired(w.d));
  if (isCompleteNow(w)) cleanup(w);
  finishRollout(w);
}

/** oldPodsRunning: old ReplicaSets still report Pods, or a Pod of one of them is not terminal. */
function oldPodsRunning(w: Work, pods: readonly PodView[]): boolean {
  if (u.sumStatus(w.old, 'replicas') > 0) return true;
  const oldUids = new Set(w.old.map((rs) => rs.metadata.uid));
  return pods.some((p) => {
    const ref = p.metadata.ownerReferences?.find((r) => r.controller === true);
    return ref !== undefined && oldUids.has(ref.uid) && !isPodTerminal(p);
  });
}
