// Which nodes are whose: the nodes a rollout selects, the rollout that holds a node, what a node ran before a
// rollout changed it (the record written before the change), and the assignments that give a node to a rollout or
// let go of it. Pure.

import type { Node, NodeConfigSource } from '../../../api/types.js';
import {
  newLabelRequirement,
  matchesLabels,
  type LabelRequirement,
  type LabelOperator,
} from '../../../api/selectors.js';
import { isLayered } from '../layers.js';
import { copySource } from '../pin.js';
import { conditionMessages, failureMessages } from '../messages.js';
import { changedByUs, ownerOf, sameRef, specSource } from '../nodeview.js';
import {
  desiredSource,
  isDeleting,
  needsWork,
  recordSource,
  sourceOfRecord,
  type LabelSelector,
  type NodeConfigRollout,
  type NodeProgress,
  type PreviousRecord,
} from '../../../api/dkc/rollout.js';
import type { AssignmentHolder, NodeAssignment, PlanInput } from './types.js';

const SELECTOR_OPERATORS: Readonly<Record<string, LabelOperator>> = {
  In: 'in',
  NotIn: 'notin',
  Exists: 'exists',
  DoesNotExist: '!',
};

/** metav1.LabelSelector as requirements; throws on an invalid one. */
export function selectorRequirements(sel: LabelSelector | undefined): LabelRequirement[] {
  const reqs: LabelRequirement[] = [];
  for (const [k, v] of Object.entries(sel?.matchLabels ?? {})) reqs.push(newLabelRequirement(k, '=', [v]));
  for (const e of sel?.matchExpressions ?? []) {
    const op = SELECTOR_OPERATORS[e.operator];
    if (op === undefined) throw new Error(conditionMessages.invalidOperator(e.operator));
    reqs.push(newLabelRequirement(e.key, op, e.values ?? []));
  }
  return reqs;
}

/** Whether the rollout's nodeSelector selects the node (an invalid selector selects none). */
export function selects(r: NodeConfigRollout, node: Node): boolean {
  try {
    return matchesLabels(selectorRequirements(r.spec?.nodeSelector), node.metadata.labels);
  } catch {
    return false;
  }
}

export const byName = (a: Node, b: Node): number => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1);
export const nameOf = (n: Node): string => n.metadata.name ?? '';

function olderThan(a: NodeConfigRollout, b: NodeConfigRollout): boolean {
  const ta = Date.parse(a.metadata.creationTimestamp ?? '') || 0;
  const tb = Date.parse(b.metadata.creationTimestamp ?? '') || 0;
  return ta !== tb ? ta < tb : (a.metadata.name ?? '') < (b.metadata.name ?? '');
}

/**
 * The unfinished rollout other than `me` that holds `node`: the one whose own records say it changed it (or is about
 * to), or an older one that selects it (so two rollouts created together never both start on it). A rollout that is
 * undoing, or Halted, holds only what it changed: it starts nothing more, and two rollouts created in the same second
 * (the name breaks the tie) must not hold each other's nodes for ever. The node's dkc.io/rollout annotation decides
 * nothing: a node may write it.
 */
export function holderOf(me: NodeConfigRollout, node: Node, others: readonly NodeConfigRollout[]): string | undefined {
  const myName = me.metadata.name;
  for (const o of others) {
    const name = o.metadata.name;
    if (name === myName || name === undefined) continue;
    if (!needsWork(o)) continue;
    if (claims(o, nameOf(node))) return name;
    if (
      o.spec?.revert !== true &&
      o.status?.phase !== 'Reverting' &&
      o.status?.phase !== 'Halted' &&
      !isDeleting(o) &&
      olderThan(o, me) &&
      selects(o, node)
    )
      return name;
  }
  return undefined;
}

/** Whether `o`'s own status records it changed `node` and has not let go of it, or is about to change it. */
function claims(o: NodeConfigRollout, node: string): boolean {
  const p = o.status?.nodes?.[node];
  return changedByUs(p) || (p?.state === 'Pending' && p.previous !== undefined);
}

/** A rollout that no longer starts nodes holds none back: its records lose their waiting marks. */
export function withoutWaiting(p: NodeProgress): NodeProgress {
  if (p.waitingReason === undefined && p.waitingSince === undefined) return p;
  const next = { ...p };
  delete next.waitingReason;
  delete next.waitingSince;
  return next;
}

/** What `node` runs now and who holds it: the record written before this rollout changes it. */
export function previousOf(node: Node, input: PlanInput): PreviousRecord {
  const holder = ownerOf(node);
  return {
    configSource: recordSource(specSource(node) ?? reportedCopy(node, input)),
    ...(holder !== undefined && holder !== '' ? { rollout: holder } : {}),
  };
}

/**
 * What a node assigned nothing runs, when that is a rollout's copy (PlanInput.rolloutCopy): a node whose NodeConfig
 * was made again (its Node deleted and re-created) keeps the config it ran while its spec is empty, and reverting it
 * to "local config" would change what it runs. Its report decides nothing else: a source that is not such a copy
 * (which the node could name to be handed any ConfigMap) is read as local config, as the spec says.
 */
function reportedCopy(node: Node, input: PlanInput): NodeConfigSource | null {
  const c = node.status?.config;
  const active = c?.active?.configMap;
  if (!active || (c?.error ?? '') !== '' || input.rolloutCopy?.(active) !== true) return null;
  return { configMap: { namespace: active.namespace, name: active.name, kubeletConfigKey: active.kubeletConfigKey } };
}

/** Sets `node` to `desired`, held by `rollout` with its record of what the node ran before: a start. */
export function startAssignment(
  node: Node,
  rollout: string,
  desired: NodeConfigSource | null,
  previous: PreviousRecord,
): NodeAssignment {
  return {
    node: nameOf(node),
    resourceVersion: node.metadata.resourceVersion ?? '',
    holder: { rollout, record: previous },
    source: desired,
  };
}

/**
 * Lets go of `node`: gives it back to `holder` with that rollout's record of it (or to nobody, null), and, with
 * `source`, puts it back on that source in the same write; without, the node keeps the source it has.
 */
export function letGo(
  node: Node,
  holder: AssignmentHolder | null,
  source: NodeConfigSource | null | 'kept' = 'kept',
): NodeAssignment {
  return { node: nameOf(node), resourceVersion: node.metadata.resourceVersion ?? '', holder, source };
}

/**
 * The source `r` assigns: a layered rollout's rendered ConfigMap (undefined before it has one), the pinned copy of
 * its configSource, or its configSource.
 */
function targetOf(r: NodeConfigRollout): NodeConfigSource | null | undefined {
  const rendered = r.status?.renderedConfigMap;
  if (rendered !== undefined) return copySource(r, rendered);
  return isLayered(r) ? undefined : desiredSource(r.spec);
}

/**
 * The rollout that gets `node` back when an undo restores it to `previous`: the one that held it before, if that one
 * still claims it by its own record — not deleted, not undone, its status saying it changed the node, and the
 * source being restored its target. Otherwise nobody: the node is then on a source no rollout holds.
 */
export function handBackTo(
  node: string,
  previous: PreviousRecord,
  others: readonly NodeConfigRollout[],
): string | undefined {
  const holder = previous.rollout;
  if (holder === undefined) return undefined;
  const o = others.find((x) => x.metadata.name === holder);
  if (
    !o ||
    isDeleting(o) ||
    o.spec?.revert === true ||
    o.status?.phase === 'Reverting' ||
    o.status?.phase === 'Reverted'
  )
    return undefined;
  const theirs = o.status?.nodes?.[node];
  if (!changedByUs(theirs) || theirs?.previous === undefined) return undefined;
  const target = targetOf(o);
  const restored = sourceOfRecord(previous.configSource);
  // A source not known (a layered rollout not yet rendered, a record that is not one) is no rollout's target.
  if (target === undefined || restored === undefined) return undefined;
  return sameRef(target?.configMap, restored?.configMap) ? holder : undefined;
}

/** Rollout `holder`'s record of what `node` ran before it changed it. */
export function recordOf(
  others: readonly NodeConfigRollout[],
  holder: string,
  node: string,
): PreviousRecord | undefined {
  return others.find((o) => o.metadata.name === holder)?.status?.nodes?.[node]?.previous;
}

export function notRestored(
  prev: NodeProgress | undefined,
  state: 'Overridden' | 'NotRestored',
  message: string,
): NodeProgress {
  if (prev?.state === state) return prev;
  const next: NodeProgress = {
    ...(prev ?? { state }),
    state,
    reason: state === 'Overridden' ? 'Overridden' : 'NoRecord',
    message,
  };
  delete next.readySince;
  return next;
}

/** A node this rollout changed is gone: recorded as such (a failure keeps its reason: it still says why the rollout stopped). */
export function deletedRecord(prev: NodeProgress): NodeProgress {
  const next: NodeProgress = { ...prev, state: 'Deleted' };
  if (next.reason === undefined) next.message = failureMessages.deleted;
  delete next.readySince;
  return next;
}
