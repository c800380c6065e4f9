// The nodes a rollout counts as running its config that no longer do: a node recorded Succeeded, still held by the
// rollout (its source the rollout's, no other rollout's), whose status.config says otherwise — the config is no
// longer active (an in-place edit of the ConfigMap, a failed trial, a broken base file sent it back), the node
// reports an error for it, or a node-local drop-in overrides a field of it. Judged again at every look, from the
// nodes alone, so that a new leader says the same; the rollout keeps a count and a few names, never a list of all.
// Pure.

import type { Node } from '../../api/types.js';
import type {
  DegradedNode,
  DegradedReason,
  NodeConfigRollout,
  NodeProgress,
  RolloutCondition,
  RolloutStatus,
} from '../../api/dkc/rollout.js';
import { conditionMessages, conditionReasons, degradedMessages, eventMessages, failureMessages } from './messages.js';
import {
  activeOnTarget,
  configError,
  isMine,
  localOverrides,
  ownerOf,
  specOnTarget,
  type NodeTarget,
} from './nodeview.js';
import type { RolloutEvent } from './plan/index.js';

/**
 * Whether a change of `node` matters to a rollout that needs no work: a Succeeded one that counted it, which keeps
 * watching whether it still runs the config.
 */
export function watchesNode(r: NodeConfigRollout, node: string | undefined): boolean {
  return r.status?.phase === 'Succeeded' && (node === undefined || r.status.nodes?.[node]?.state === 'Succeeded');
}

/** How many degraded nodes the status names (the count is of all). */
export const DEGRADED_NAMED = 5;

/** Why a node the rollout holds no longer runs its config, or undefined while it does. */
function leftConfig(node: Node, t: NodeTarget): DegradedNode | undefined {
  const name = node.metadata.name ?? '';
  const degraded = (reason: DegradedReason, message: string): DegradedNode => ({ node: name, reason, message });
  const err = configError(node, t);
  if (err !== undefined) return degraded('ConfigError', err);
  if (!activeOnTarget(node, t)) return degraded('NotActive', degradedMessages.notActive(node.status?.config?.active));
  const overrides = localOverrides(node, t);
  if (overrides.length > 0) return degraded('LocalOverride', failureMessages.localOverride(overrides));
  return undefined;
}

/**
 * The nodes recorded Succeeded that still hold the rollout's source and no longer run its config, sorted by name.
 * A node someone else has moved since is not the rollout's any more, and not counted here; nor is any while the
 * ConfigMap is gone.
 */
export function findDegraded(
  nodes: readonly Node[],
  records: Readonly<Record<string, NodeProgress>>,
  t: NodeTarget,
): DegradedNode[] {
  const out: DegradedNode[] = [];
  // The ConfigMap gone (deleted by hand), nothing says which version the nodes should run: they are not judged.
  if (t.desired?.configMap && t.configMap === undefined) return out;
  for (const n of nodes) {
    const name = n.metadata.name ?? '';
    if (records[name]?.state !== 'Succeeded' || !specOnTarget(n, t.desired)) continue;
    const holder = ownerOf(n);
    if (holder !== undefined && !isMine(n, t.rollout)) continue;
    const why = leftConfig(n, t);
    if (why) out.push(why);
  }
  return out.sort((a, b) => (a.node < b.node ? -1 : 1));
}

/** The Degraded condition: True while some node left the config; False once every one is back (absent before any left). */
export function degradedCondition(
  found: readonly DegradedNode[],
  total: number,
  old: RolloutStatus | undefined,
): Omit<RolloutCondition, 'lastTransitionTime'> | undefined {
  if (found.length > 0)
    return {
      type: 'Degraded',
      status: 'True',
      reason: conditionReasons.degraded,
      message: conditionMessages.degraded(found.length, total, found.slice(0, DEGRADED_NAMED)),
    };
  if (!old?.conditions?.some((c) => c.type === 'Degraded')) return undefined;
  return {
    type: 'Degraded',
    status: 'False',
    reason: conditionReasons.notDegraded,
    message: conditionMessages.notDegraded,
  };
}

/** The status's count and named nodes (absent while none has ever left: a status stays as it was). */
export function degradedFields(
  found: readonly DegradedNode[],
  old: RolloutStatus | undefined,
): Pick<RolloutStatus, 'degradedNodes' | 'degraded'> {
  if (found.length === 0 && old?.degradedNodes === undefined) return {};
  return { degradedNodes: found.length, degraded: found.slice(0, DEGRADED_NAMED).map((d) => ({ ...d })) };
}

/** A warning when nodes newly leave the config (those named), a normal event when the last one is back. */
export function degradedEvents(old: RolloutStatus | undefined, next: RolloutStatus): RolloutEvent[] {
  const before = new Set((old?.degraded ?? []).map((d) => d.node));
  const fresh = (next.degraded ?? []).filter((d) => !before.has(d.node));
  const events: RolloutEvent[] = [];
  if (fresh.length > 0 || (next.degradedNodes ?? 0) > (old?.degradedNodes ?? 0))
    events.push({
      type: 'Warning',
      reason: 'NodesDegraded',
      message: eventMessages.degraded(next.degradedNodes ?? 0, fresh),
    });
  if ((next.degradedNodes ?? 0) === 0 && (old?.degradedNodes ?? 0) > 0)
    events.push({ type: 'Normal', reason: 'NodesRecovered', message: eventMessages.recovered });
  return events;
}
