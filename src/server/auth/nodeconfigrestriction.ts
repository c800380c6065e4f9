// NodeRestriction for a node's NodeConfig (dkc.io), as upstream's plugin treats a node's own Node: a node creates
// only the NodeConfig named after it, and exactly the one its agent creates — assigning nothing, no label or
// annotation under dkc.io/ (the rollout controller's), no finalizer (one would keep a deleted node's NodeConfig
// Terminating for good), and one owner reference, to its own Node with that Node's uid (another uid would have the
// garbage collector delete the NodeConfig whenever the node likes). It never changes what it is assigned (spec),
// who owns it, its finalizers, or the dkc.io/ labels and annotations. The status is its own to write; its revert
// record (status.previous) is the controller's, which the NodeConfig admission step enforces for every user. Pure:
// returns why a request is refused, or undefined.

import { deepEqual } from '../../api/equal.js';
import { goQuote } from '../../gotext/quote.js';
import type { OwnerReference } from '../../api/types.js';
import type { AdmissionAttributes } from '../authz.js';

const q = goQuote;

export const nodeConfigRestrictionMessages = {
  otherNode: (node: string, name: string): string => `node ${q(node)} is not allowed to modify nodeconfig ${q(name)}`,
  createWithSource: (node: string): string =>
    `node ${q(node)} is not allowed to create a nodeconfig with a non-nil configSource`,
  ownerNotSelf: (node: string): string =>
    `node ${q(node)} can only create a nodeconfig with a single owner reference set to itself`,
  ownerUid: (node: string, uid: string | undefined): string =>
    uid === undefined
      ? `node ${q(node)} can only create a nodeconfig owned by its own Node, which was not found`
      : `node ${q(node)} can only create a nodeconfig owned by its own Node, whose uid is ${q(uid)}`,
  blockOwnerDeletion: (node: string): string => `node ${q(node)} must not set blockOwnerDeletion on an owner reference`,
  setMetadata: (node: string, what: 'labels' | 'annotations', keys: readonly string[]): string =>
    `node ${q(node)} is not allowed to set the following ${what}: ${keys.join(', ')}`,
  modifyMetadata: (what: 'labels' | 'annotations', keys: readonly string[]): string =>
    `is not allowed to modify ${what}: ${keys.join(', ')}`,
  setFinalizers: (node: string): string => `node ${q(node)} is not allowed to set finalizers on a nodeconfig`,
  finalizers: (node: string): string => `node ${q(node)} is not allowed to modify finalizers`,
  spec: (node: string): string => `node ${q(node)} is not allowed to modify the spec of its nodeconfig`,
  ownerReferences: (node: string): string => `node ${q(node)} is not allowed to modify ownerReferences`,
};
const m = nodeConfigRestrictionMessages;

/** The domain whose labels and annotations are the rollout controller's, with its subdomains. */
export const DKC_DOMAIN = 'dkc.io';

const record = (v: unknown): Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
const metaOf = (obj: unknown): Record<string, unknown> => record(record(obj)['metadata']);
const specOf = (obj: unknown): Record<string, unknown> => record(record(obj)['spec']);
/** Absent and null are one: nothing assigned. */
const configSourceOf = (obj: unknown): unknown => specOf(obj)['configSource'] ?? null;
const ownersOf = (obj: unknown): OwnerReference[] => {
  const refs = metaOf(obj)['ownerReferences'];
  return Array.isArray(refs) ? (refs as OwnerReference[]) : [];
};
const finalizersOf = (obj: unknown): unknown[] => {
  const f = metaOf(obj)['finalizers'];
  return Array.isArray(f) ? f : [];
};
const stringMap = (obj: unknown, what: 'labels' | 'annotations'): Record<string, unknown> => record(metaOf(obj)[what]);

/** Whether a label or annotation key is in `domain` or one of its subdomains (upstream's label-domain test). */
export function inDomain(key: string, domain: string): boolean {
  const slash = key.indexOf('/');
  const d = slash < 0 ? '' : key.slice(0, slash);
  return d === domain || d.endsWith(`.${domain}`);
}

/** The dkc.io/ keys of `what` added, changed or removed between `prev` and `next`, sorted. */
export function changedDomainKeys(next: unknown, prev: unknown, what: 'labels' | 'annotations'): string[] {
  const [a, b] = [stringMap(next, what), stringMap(prev, what)];
  return [...new Set([...Object.keys(a), ...Object.keys(b)])]
    .filter((k) => inDomain(k, DKC_DOMAIN) && (!Object.hasOwn(a, k) || !Object.hasOwn(b, k) || a[k] !== b[k]))
    .sort();
}

function createRefusal(nodeName: string, a: AdmissionAttributes, nodeUid?: string | null): string | undefined {
  if (configSourceOf(a.object) !== null) return m.createWithSource(nodeName);
  for (const what of ['labels', 'annotations'] as const) {
    const keys = changedDomainKeys(a.object, undefined, what);
    if (keys.length > 0) return m.setMetadata(nodeName, what, keys);
  }
  if (finalizersOf(a.object).length > 0) return m.setFinalizers(nodeName);
  const owners = ownersOf(a.object);
  const owner = owners[0];
  if (owners.length !== 1 || !owner || owner.apiVersion !== 'v1' || owner.kind !== 'Node' || owner.name !== nodeName)
    return m.ownerNotSelf(nodeName);
  if (owner.blockOwnerDeletion === true) return m.blockOwnerDeletion(nodeName);
  if (nodeUid !== undefined && owner.uid !== nodeUid) return m.ownerUid(nodeName, nodeUid ?? undefined);
  return undefined;
}

function updateRefusal(nodeName: string, a: AdmissionAttributes): string | undefined {
  if (!deepEqual(specOf(a.object), specOf(a.oldObject))) return m.spec(nodeName);
  if (!deepEqual(ownersOf(a.object), ownersOf(a.oldObject))) return m.ownerReferences(nodeName);
  if (!deepEqual(finalizersOf(a.object), finalizersOf(a.oldObject))) return m.finalizers(nodeName);
  for (const what of ['labels', 'annotations'] as const) {
    const keys = changedDomainKeys(a.object, a.oldObject, what);
    if (keys.length > 0) return m.modifyMetadata(what, keys);
  }
  return undefined;
}

/**
 * Why the node `nodeName` may not make this request on a NodeConfig; undefined when it may. `nodeUid` is the uid of
 * its Node as stored (null: there is none), which a create's owner reference must carry; when it is not given (a
 * policy that cannot read the Node, as a ValidatingAdmissionPolicy) the uid is not checked.
 */
export function nodeConfigRefusal(
  nodeName: string,
  a: AdmissionAttributes,
  nodeUid?: string | null,
): string | undefined {
  if (a.name !== nodeName) return m.otherNode(nodeName, a.name);
  if (a.operation === 'CREATE') return createRefusal(nodeName, a, nodeUid);
  if (a.operation === 'UPDATE' && a.subresource === '') return updateRefusal(nodeName, a);
  return undefined;
}
