// NodeRestriction for a node's NodeConfig (dkc.io), as upstream's plugin treats a node's own Node: a node creates
// only the NodeConfig named after it, owned by its own Node and assigning nothing, and never changes what it is
// assigned (spec) or who owns it. The status is its own to write; its revert record (status.previous) is the
// controller's, which the NodeConfig admission step enforces for every user. Pure: returns why a request is
// refused, or undefined.

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
  blockOwnerDeletion: (node: string): string => `node ${q(node)} must not set blockOwnerDeletion on an owner reference`,
  spec: (node: string): string => `node ${q(node)} is not allowed to modify the spec of its nodeconfig`,
  ownerReferences: (node: string): string => `node ${q(node)} is not allowed to modify ownerReferences`,
};
const m = nodeConfigRestrictionMessages;

const record = (v: unknown): Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
const specOf = (obj: unknown): Record<string, unknown> => record(record(obj)['spec']);
/** Absent and null are one: nothing assigned. */
const configSourceOf = (obj: unknown): unknown => specOf(obj)['configSource'] ?? null;
const ownersOf = (obj: unknown): OwnerReference[] => {
  const refs = record(record(obj)['metadata'])['ownerReferences'];
  return Array.isArray(refs) ? (refs as OwnerReference[]) : [];
};

/** Why the node `nodeName` may not make this request on a NodeConfig; undefined when it may. */
export function nodeConfigRefusal(nodeName: string, a: AdmissionAttributes): string | undefined {
  if (a.name !== nodeName) return m.otherNode(nodeName, a.name);
  if (a.operation === 'CREATE') {
    if (configSourceOf(a.object) !== null) return m.createWithSource(nodeName);
    const owners = ownersOf(a.object);
    const owner = owners[0];
    if (owners.length !== 1 || !owner || owner.apiVersion !== 'v1' || owner.kind !== 'Node' || owner.name !== nodeName)
      return m.ownerNotSelf(nodeName);
    if (owner.blockOwnerDeletion === true) return m.blockOwnerDeletion(nodeName);
    return undefined;
  }
  if (a.operation === 'UPDATE' && a.subresource === '') {
    if (!deepEqual(specOf(a.object), specOf(a.oldObject))) return m.spec(nodeName);
    if (!deepEqual(ownersOf(a.object), ownersOf(a.oldObject))) return m.ownerReferences(nodeName);
  }
  return undefined;
}
