// What a node's write of its own Node or NodeConfig may do to metadata.managedFields. kube honours managedFields a
// client sends in an update or patch (a tool may reset or edit them), and its NodeRestriction does not look at them;
// here a node may not use them to stand in the rollout controller's way. The controller assigns by server-side apply
// and takes a field from an Update manager but not from another applier, so an Apply entry a node puts on the fields
// the controller applies — by an apply with force of its unchanged spec.configSource, or by sending forged entries —
// would stall every rollout that selects it. Two rules, judged on the managedFields the write would store (the field
// manager has already merged what the request sent with what the write records):
//   1. no Apply entry comes to own spec.configSource or the dkc.io/rollout annotation that did not own it before;
//   2. one write records one manager: at most one entry is new or owns a field it did not own before. Every other
//      entry may only keep or lose fields (a write takes the fields it changes from their old owners), except the
//      server's own bookkeeping entries: "ancient-changes" (the oldest update managers merged, owning nothing new)
//      and "before-first-apply" (the first apply to an object no one managed);
//   3. an Update entry gains only fields the write adds or changes (an update owns what it changed, nothing else).
// Whatever a node could earn by a write of its own, it may still send (an Apply entry on other fields is what an
// apply of its own would record); what no write of its own records, it may not.
// Pure: returns why the write is refused, or undefined.

import { ROLLOUT_ANNOTATION } from '../../api/dkc/rollout.js';
import type { KubeObject } from '../../api/types.js';
import { decodeManagedFields, parseIdentifier, type Managed } from '../fieldmanager/managed.js';
import { difference, emptySet, isEmptySet, union, type FieldSet } from '../fieldmanager/fieldset.js';
import { goQuote } from '../../gotext/quote.js';

/** The fields the rollout controller applies on a node's Node or NodeConfig, as FieldsV1 paths and as people read them. */
export const CONTROLLER_APPLIED_FIELDS: readonly { path: readonly string[]; name: string }[] = [
  { path: ['f:spec', 'f:configSource'], name: 'spec.configSource' },
  {
    path: ['f:metadata', 'f:annotations', `f:${ROLLOUT_ANNOTATION}`],
    name: `metadata.annotations[${ROLLOUT_ANNOTATION}]`,
  },
];

const ANCIENT_CHANGES = 'ancient-changes';
const BEFORE_FIRST_APPLY = 'before-first-apply';

export const managedFieldsMessages = {
  applyOwner: (node: string, field: string, manager: string): string =>
    `node ${goQuote(node)} is not allowed to own ${field} by server-side apply (manager ${goQuote(manager)}): the rollout controller applies it`,
  unchanged: (node: string, manager: string): string =>
    `node ${goQuote(node)} is not allowed to set managedFields: the update manager ${goQuote(manager)} would own fields this write does not change`,
  unearned: (node: string, managers: readonly string[]): string =>
    `node ${goQuote(node)} is not allowed to set managedFields: a write records only its own field manager, and it would give fields to ${managers.map(goQuote).join(', ')}`,
};
const m = managedFieldsMessages;

/** Whether the set owns anything at or below `path`. */
function reaches(s: FieldSet, path: readonly string[]): boolean {
  let cur: FieldSet | undefined = s;
  for (const pe of path) {
    cur = Object.hasOwn(cur, pe) ? cur[pe] : undefined;
    if (cur === undefined) return false;
  }
  return true;
}

function managedOf(obj: KubeObject | undefined): Managed {
  try {
    return decodeManagedFields(obj?.metadata.managedFields, false);
  } catch {
    return decodeManagedFields(undefined, false);
  }
}

const describe = (id: string): string => {
  const who = parseIdentifier(id);
  return `${who.manager} (${who.operation}${who.subresource ? ` ${who.subresource}` : ''})`;
};

/** An entry the server itself writes beside the writer's, owning nothing the object's managers did not own. */
function bookkeeping(id: string, gained: FieldSet, before: Managed): boolean {
  const who = parseIdentifier(id);
  if (who.operation !== 'Update') return false;
  if (who.manager === BEFORE_FIRST_APPLY) return before.fields.size === 0;
  if (who.manager !== ANCIENT_CHANGES) return false;
  let owned = emptySet();
  for (const vs of before.fields.values()) owned = union(owned, vs.set);
  return isEmptySet(difference(gained, owned));
}

/**
 * Why a node's write of the main resource of its own Node or NodeConfig, turning `oldObject` (absent for a create)
 * into `object`, brings managedFields it did not earn; undefined when it does not. `changed`: the fields the write
 * adds or modifies, when known (rule 3 is then checked).
 */
export function managedFieldsRefusal(
  node: string,
  object: KubeObject,
  oldObject?: KubeObject,
  changed?: FieldSet,
): string | undefined {
  const before = managedOf(oldObject);
  const after = managedOf(object);
  for (const [id, vs] of after.fields) {
    if (!vs.applied) continue;
    const had = before.fields.get(id)?.set ?? emptySet();
    for (const f of CONTROLLER_APPLIED_FIELDS)
      if (reaches(vs.set, f.path) && !reaches(had, f.path))
        return m.applyOwner(node, f.name, parseIdentifier(id).manager);
  }
  const grown: string[] = [];
  for (const [id, vs] of after.fields) {
    const gained = difference(vs.set, before.fields.get(id)?.set ?? emptySet());
    if (isEmptySet(gained) || bookkeeping(id, gained, before)) continue;
    if (changed && !vs.applied && !isEmptySet(difference(gained, changed)))
      return m.unchanged(node, parseIdentifier(id).manager);
    grown.push(id);
  }
  return grown.length > 1 ? m.unearned(node, grown.map(describe)) : undefined;
}
