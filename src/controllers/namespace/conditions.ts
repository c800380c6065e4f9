// The conditions the namespace controller keeps on a terminating namespace, worded as kube-controller-manager's
// namespace deleter words them (operators and tools match on them; see "Namespace stuck in Terminating" in the
// kubernetes.io namespace docs): each of the five types is True with the failure's reason and message, or False with
// its "all is well" reason and message. Pure: what a pass found goes in, the conditions to write come out.

import { NAMESPACE_DELETION_CONDITIONS, type NamespaceDeletionCondition } from '../../api/namespace.js';
import type { NamespaceCondition } from '../../api/types.js';
import { gvrString, type GroupVersionResource } from './discovery.js';

const OK: Record<NamespaceDeletionCondition, { reason: string; message: string }> = {
  NamespaceDeletionDiscoveryFailure: {
    reason: 'ResourcesDiscovered',
    message: 'All resources successfully discovered',
  },
  NamespaceDeletionGroupVersionParsingFailure: {
    reason: 'ParsedGroupVersions',
    message: 'All legacy kube types successfully parsed',
  },
  NamespaceDeletionContentFailure: {
    reason: 'ContentDeleted',
    message: 'All content successfully deleted, may be waiting on finalization',
  },
  NamespaceContentRemaining: { reason: 'ContentRemoved', message: 'All content successfully removed' },
  NamespaceFinalizersRemaining: {
    reason: 'ContentHasNoFinalizers',
    message: 'All content-preserving finalizers finished',
  },
};

/** What one pass over a namespace's content found. */
export interface DeletionPass {
  /** Discovery failed, in whole or for some group versions: the condition's message. */
  discoveryFailure?: string;
  /** A discovered group version did not parse. */
  groupVersionFailure?: string;
  /** The failures to delete or to list, one message per resource. */
  contentFailures: string[];
  /** Objects still there after the deletes, per resource (resources with none left may be absent). */
  remaining: { gvr: GroupVersionResource; count: number }[];
  /** Objects still there per finalizer they name. */
  finalizers: Record<string, number>;
}

/** The failing conditions of a pass, by type; a type not in the answer is well. */
export function failingConditions(
  pass: DeletionPass,
): Map<NamespaceDeletionCondition, { reason: string; message: string }> {
  const out = new Map<NamespaceDeletionCondition, { reason: string; message: string }>();
  const add = (type: NamespaceDeletionCondition, reason: string, message: string) => out.set(type, { reason, message });
  if (pass.discoveryFailure !== undefined)
    add('NamespaceDeletionDiscoveryFailure', 'DiscoveryFailed', pass.discoveryFailure);
  if (pass.groupVersionFailure !== undefined)
    add('NamespaceDeletionGroupVersionParsingFailure', 'GroupVersionParsingFailed', pass.groupVersionFailure);
  if (pass.contentFailures.length > 0) {
    const msgs = [...pass.contentFailures].sort();
    add(
      'NamespaceDeletionContentFailure',
      'ContentDeletionFailed',
      `Failed to delete all resource types, ${msgs.length} remaining: ${msgs.join(', ')}`,
    );
  }
  const resources = pass.remaining
    .filter((r) => r.count > 0)
    .map((r) => `${r.gvr.resource}.${r.gvr.group} has ${r.count} resource instances`)
    .sort();
  if (resources.length > 0)
    add('NamespaceContentRemaining', 'SomeResourcesRemain', `Some resources are remaining: ${resources.join(', ')}`);
  const finalizers = Object.entries(pass.finalizers)
    .filter(([, n]) => n > 0)
    .map(([f, n]) => `${f} in ${n} resource instances`)
    .sort();
  if (finalizers.length > 0) {
    add(
      'NamespaceFinalizersRemaining',
      'SomeFinalizersRemain',
      `Some content in the namespace has finalizers remaining: ${finalizers.join(', ')}`,
    );
  }
  return out;
}

/**
 * The namespace's conditions after a pass, and whether they changed: each of the five types is set (appended when
 * absent); one that changes status gets `now` as its transition time; conditions of other types are kept as they are.
 */
export function updateConditions(
  current: readonly NamespaceCondition[],
  pass: DeletionPass,
  now: string,
): { conditions: NamespaceCondition[]; changed: boolean } {
  const failures = failingConditions(pass);
  const conditions = current.map((c) => ({ ...c }));
  let changed = false;
  for (const type of NAMESPACE_DELETION_CONDITIONS) {
    const bad = failures.get(type);
    const want = { type, status: bad ? 'True' : 'False', ...(bad ?? OK[type]) };
    const old = conditions.find((c) => c.type === type);
    if (!old) {
      conditions.push({
        type,
        status: want.status,
        lastTransitionTime: now,
        reason: want.reason,
        message: want.message,
      });
      changed = true;
    } else if (old.status !== want.status || old.reason !== want.reason || old.message !== want.message) {
      if (old.status !== want.status) old.lastTransitionTime = now;
      Object.assign(old, { status: want.status, reason: want.reason, message: want.message });
      changed = true;
    }
  }
  return { conditions, changed };
}

/** The error kube's deleter reports for objects without finalizers that a delete left behind. */
export function unexpectedRemainderMessage(namespace: string, gvr: GroupVersionResource): string {
  return `unexpected items still remain in namespace: ${namespace} for gvr: ${gvrString(gvr)}`;
}
