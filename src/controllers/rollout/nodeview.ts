// One node as a rollout sees it, and the step of its state machine: Pending → InFlight → Succeeded | Failed, or
// Overridden when someone else changes it. Pure: the node object, the rollout's target and the time go in, the
// node's next progress record comes out. The Node says where it is now (spec, status, the dkc.io/rollout hint); the
// rollout's own record says what this rollout did to it and what it ran before, so a new leader evaluates exactly
// what the last one would have, and nothing the node or a patcher of nodes writes decides what an undo assigns.

import type { ConfigMapNodeConfigSource, Node, NodeConfigSource } from '../../api/types.js';
import { syncError } from '../../api/configstatus.js';
import { isFresh, renewIntervalMs, staleAtMs, type Heartbeat } from './heartbeat.js';
import { failureMessages } from './messages.js';
import { recordAgrees } from './trust.js';
import { ROLLOUT_ANNOTATION, formatTimeCeil, type NodeProgress, type WaitingReason } from '../../api/dkc/rollout.js';
import type { KubeletReport, LocalOverride } from '../../api/dkc/nodeconfig.js';
import { relevantOverrides, restartedSince } from './overrides.js';

/** What the rollout wants on each node, and when. */
export interface NodeTarget {
  rollout: string;
  /** The spec.configSource to set; null = local config. */
  desired: NodeConfigSource | null;
  /** The ConfigMap's current uid and resourceVersion; undefined when it does not exist (nothing can be active). */
  configMap: { uid: string; resourceVersion: string } | undefined;
  soakMs: number;
  deadlineMs: number;
  now: Date;
  /** Each node's heartbeat (its Lease), by node name. */
  heartbeat: (node: string) => Heartbeat;
  /** When this controller started (ms): soak time recorded before it went unobserved, and does not count. */
  startedMs: number;
  /** Each node's daemon report (its NodeConfig's status.kubelet), by node name; none where the channel has none. */
  kubelet: (node: string) => KubeletReport | null | undefined;
  /** The fields the target config sets (./overrides.ts configFields); undefined when not known. */
  fields: ReadonlySet<string> | undefined;
}

/** A ConfigMap reference compared by what names it (namespace, name, key), as spec.configSource carries it. */
export function sameRef(
  a: ConfigMapNodeConfigSource | null | undefined,
  b: ConfigMapNodeConfigSource | null | undefined,
): boolean {
  if (!a || !b) return !a && !b;
  return a.namespace === b.namespace && a.name === b.name && a.kubeletConfigKey === b.kubeletConfigKey;
}

export function ownerOf(node: Node): string | undefined {
  return node.metadata.annotations?.[ROLLOUT_ANNOTATION];
}

export function isMine(node: Node, rollout: string): boolean {
  return ownerOf(node) === rollout;
}

/** The node's spec.configSource, normalised: no configMap means local config (null). */
export function specSource(node: Node): NodeConfigSource | null {
  const cm = node.spec?.configSource?.configMap;
  return cm ? { configMap: { namespace: cm.namespace, name: cm.name, kubeletConfigKey: cm.kubeletConfigKey } } : null;
}

export function specOnTarget(node: Node, desired: NodeConfigSource | null): boolean {
  return sameRef(node.spec?.configSource?.configMap, desired?.configMap);
}

function readyCondition(node: Node): { status: string; since: number | undefined } {
  const c = node.status?.conditions?.find((x) => x.type === 'Ready');
  const since = typeof c?.lastTransitionTime === 'string' ? Date.parse(c.lastTransitionTime) : NaN;
  return { status: c?.status ?? 'Unknown', since: Number.isNaN(since) ? undefined : since };
}

/** status.config.active is the target with the ConfigMap's current uid and resourceVersion (or local config for a reset). */
export function activeOnTarget(node: Node, t: NodeTarget): boolean {
  const active = node.status?.config?.active?.configMap;
  if (!t.desired?.configMap) return !active;
  if (!t.configMap || !active) return false;
  return (
    sameRef(active, t.desired.configMap) &&
    active.uid === t.configMap.uid &&
    active.resourceVersion === t.configMap.resourceVersion
  );
}

/** Upstream's status prefix for a failed sync (e.g. a download the Node authorizer has not yet allowed): retried by the agent. */
const SYNC_FAILURE = syncError('');

/**
 * The node reports an error for the rollout's own source: the agent refused or rolled back the new config. An error
 * about an earlier version of the same ConfigMap (one edited since a previous attempt failed) is stale, not this
 * rollout's: the agent will report on the current version. With `transient`, a failed sync, which the agent retries
 * and which says nothing of the config, counts too; without it, it does not.
 */
export function configError(node: Node, t: NodeTarget, transient = false): string | undefined {
  const cfg = node.status?.config;
  const assigned = cfg?.assigned?.configMap;
  if (!cfg?.error || !sameRef(assigned, t.desired?.configMap)) return undefined;
  if (
    assigned &&
    t.configMap &&
    (assigned.uid !== t.configMap.uid || assigned.resourceVersion !== t.configMap.resourceVersion)
  )
    return undefined;
  if (!transient && cfg.error.startsWith(SYNC_FAILURE)) return undefined;
  return cfg.error;
}

/** Healthy on the target right now: active, no error, no field of it overridden by a local drop-in, Ready. */
export function healthyOnTarget(node: Node, t: NodeTarget): boolean {
  return (
    activeOnTarget(node, t) &&
    !node.status?.config?.error &&
    localOverrides(node, t).length === 0 &&
    readyCondition(node).status === 'True'
  );
}

/** The fields of the target, active on the node, that a node-local drop-in overrides (the kubelet runs the local value). */
export function localOverrides(node: Node, t: NodeTarget): LocalOverride[] {
  if (!t.desired?.configMap || !activeOnTarget(node, t)) return [];
  return relevantOverrides(t.kubelet(node.metadata.name ?? ''), t.fields);
}

/**
 * Why a node cannot be changed now, or undefined when it can: its Ready condition is not True (absent included), or
 * it has not heartbeated recently (a Ready=True that nobody is renewing is a status from before it went silent).
 */
export function unavailableReason(node: Node, h: Heartbeat, nowMs: number): WaitingReason | undefined {
  if (readyCondition(node).status !== 'True') return 'NotReady';
  if (!isFresh(h, nowMs)) return 'HeartbeatStale';
  return undefined;
}

function renewedAt(h: Heartbeat): string | undefined {
  return h.renewedMs === undefined ? undefined : new Date(h.renewedMs).toISOString();
}

function failed(prev: NodeProgress, reason: NonNullable<NodeProgress['reason']>, message: string): NodeProgress {
  const next: NodeProgress = { ...prev, state: reason === 'Overridden' ? 'Overridden' : 'Failed', reason, message };
  delete next.readySince;
  return next;
}

/**
 * The soak of a node that is healthy with a fresh heartbeat now: since when it counts, and whether it is over. It
 * counts only time this controller has watched (a soak recorded before it started restarts now), restarts at a later
 * Ready transition, and is over at its end when the node renewed its Lease within one renewal interval before it (a
 * node heartbeating all along always has), else at the next renewal, which a frozen agent never sends. So a soak
 * lasts as long as asked, not until the renewal after it, and an agent that froze in its last renewal interval is
 * the one it cannot tell from a live one.
 */
function soak(node: Node, prev: NodeProgress, t: NodeTarget, h: Heartbeat): { since: number; over: boolean } {
  const now = t.now.getTime();
  const recorded = prev.readySince !== undefined ? Date.parse(prev.readySince) : NaN;
  let since = Number.isNaN(recorded) || recorded < t.startedMs ? now : recorded;
  // A Ready flap between two looks shows as a later transition time: the soak restarts from it.
  const flapped = readyCondition(node).since;
  if (flapped !== undefined && flapped > since) since = flapped;
  const end = since + t.soakMs;
  const heard = t.soakMs === 0 || (h.renewedMs !== undefined && h.renewedMs >= end - renewIntervalMs(h));
  return { since, over: now >= end && heard };
}

/**
 * One step for a node this rollout has changed and is waiting on. Only a change of spec.configSource, which takes the
 * right to assign, overrides it: the dkc.io/rollout annotation is a hint the node itself may write.
 */
function stepInFlight(node: Node, prev: NodeProgress, t: NodeTarget): NodeProgress {
  if (!specOnTarget(node, t.desired)) return failed(prev, 'Overridden', failureMessages.overridden);
  const err = configError(node, t);
  if (err !== undefined) return failed(prev, 'ConfigError', err);
  const overrides = localOverrides(node, t);
  if (overrides.length > 0) return failed(prev, 'LocalOverride', failureMessages.localOverride(overrides));
  // A kubelet restart the node's daemon did not cause, during the soak: a crash after the daemon's trial let the config
  // through. Within the trial the daemon's own crash-loop accounting judges restarts (a ConfigError when it fails).
  const since = prev.readySince !== undefined ? Date.parse(prev.readySince) : NaN;
  const restarted = Number.isNaN(since) ? undefined : restartedSince(t.kubelet(node.metadata.name ?? ''), since);
  if (restarted !== undefined) return failed(prev, 'KubeletRestarted', failureMessages.kubeletRestarted(restarted));
  const now = t.now.getTime();
  const h = t.heartbeat(node.metadata.name ?? '');
  // Soak time counts only while the node heartbeats: a lapse restarts it.
  if (healthyOnTarget(node, t) && isFresh(h, now)) {
    const { since, over } = soak(node, prev, t, h);
    if (over) {
      const done: NodeProgress = { ...prev, state: 'Succeeded' };
      delete done.readySince;
      return done;
    }
    const kept = prev.readySince !== undefined && Date.parse(prev.readySince) === since;
    return { ...prev, readySince: kept && prev.readySince !== undefined ? prev.readySince : formatTimeCeil(since) };
  }
  const updatedAt = prev.updatedAt !== undefined ? Date.parse(prev.updatedAt) : now;
  if (now >= updatedAt + t.deadlineMs) {
    // A sync failure that outlived the deadline is the reason, in the agent's words.
    const stuck = configError(node, t, true);
    if (stuck !== undefined) return failed(prev, 'ConfigError', stuck);
    const ready = readyCondition(node).status;
    if (ready !== 'True') return failed(prev, 'NotReady', failureMessages.notReady(ready));
    if (!isFresh(h, now)) return failed(prev, 'NotReady', failureMessages.heartbeatStale(renewedAt(h)));
    return failed(prev, 'NotActive', failureMessages.notActive(Math.round(t.deadlineMs / 1000)));
  }
  const waiting = { ...prev };
  delete waiting.readySince;
  return waiting;
}

/**
 * The node's next record. `recoveredBatch` is the batch a node gets when it turns out to have been changed by this
 * rollout although the record says Pending: the last leader patched it and stopped before writing status.
 */
export function stepNode(
  node: Node,
  prev: NodeProgress | undefined,
  t: NodeTarget,
  recoveredBatch: number,
): NodeProgress {
  const record = prev ?? { state: 'Pending' };
  switch (record.state) {
    case 'Pending':
      // Recorded as about to change (its previous source written first) and found changed, with the guarded copy of
      // the record the change wrote: the patch took.
      if (record.previous !== undefined && specOnTarget(node, t.desired) && recordAgrees(node, record.previous)) {
        const recovered: NodeProgress = {
          state: 'InFlight',
          batch: recoveredBatch,
          updatedAt: formatTimeCeil(t.now.getTime()),
          previous: record.previous,
        };
        return stepInFlight(node, recovered, t);
      }
      // Already on the target without a change of ours (a dkc.io/rollout naming us is no proof that we made one),
      // healthy with a fresh heartbeat.
      if (
        specOnTarget(node, t.desired) &&
        healthyOnTarget(node, t) &&
        isFresh(t.heartbeat(node.metadata.name ?? ''), t.now.getTime())
      ) {
        return { state: 'Succeeded' };
      }
      return { state: 'Pending' };
    case 'InFlight':
      return stepInFlight(node, record, t);
    case 'Succeeded':
      // Counted, never fought over: a node someone else moves off the target is recorded and left alone.
      if (!specOnTarget(node, t.desired)) {
        return failed(record, 'Overridden', failureMessages.overridden);
      }
      return record;
    default:
      return record;
  }
}

/** Whether this rollout set the node's spec.configSource and has not yet handed it back: what an undo restores. */
export function changedByUs(p: NodeProgress | undefined): boolean {
  return (
    p !== undefined &&
    p.updatedAt !== undefined &&
    (p.state === 'InFlight' || p.state === 'Succeeded' || p.state === 'Failed')
  );
}

/**
 * When the node's record changes by time alone (soak over, heartbeat lapsed, deadline passed), in ms from now;
 * undefined for never. A renewal of the node's Lease is an event of its own, looked at when it comes.
 */
export function nextDeadlineMs(p: NodeProgress, t: NodeTarget, h: Heartbeat): number | undefined {
  if (p.state !== 'InFlight') return undefined;
  const now = t.now.getTime();
  const due: number[] = [];
  if (p.readySince !== undefined) due.push(Date.parse(p.readySince) + t.soakMs);
  const stale = p.readySince !== undefined ? staleAtMs(h) : undefined;
  if (stale !== undefined) due.push(stale);
  if (p.updatedAt !== undefined) due.push(Date.parse(p.updatedAt) + t.deadlineMs);
  // What is due already was decided in this look: a soak over but not yet heard of waits for the next renewal (an
  // event), a deadline passed while healthy no longer applies. Looking again at once would spin.
  const ahead = due.filter((d) => d > now);
  return ahead.length > 0 ? Math.min(...ahead) - now : undefined;
}
