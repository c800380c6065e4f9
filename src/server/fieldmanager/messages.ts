// The words of server-side apply, as kube-apiserver and structured-merge-diff write them (k8s.io/apimachinery's
// managedfields/internal and sigs.k8s.io/structured-merge-diff): clients and scripts match on conflict messages, so
// they are reproduced exactly, in one place.

import { goQuote } from '../../gotext/quote.js';
import { elementString } from './pathelement.js';

/** Go's %q of a []string: `["a" "b"]`. */
function goQuoteList(items: readonly string[]): string {
  return `[${items.map(goQuote).join(' ')}]`;
}

export const typedText = {
  nullKeyedItem: 'associative list with keys may not have a null element',
  nonMapKeyedItem: 'associative list with keys may not have non-map elements',
  itemOmitsKeys: (keys: readonly string[]) =>
    `associative list with keys has an element that omits all key fields ${goQuoteList(keys)} (and doesn't have default values for any key fields)`,
  setOfLists: 'not supported: associative list with lists as elements',
  nullSetItem: "associative list without keys has an element that's an explicit null",
  mapSetItem: "associative list without keys has an element that's a map type",
  element: (i: number, detail: string) => `element ${i}: ${detail}`,
  duplicateEntries: (pe: string) => `duplicate entries for key ${elementString(pe)}`,
  notDeclared: 'field not declared in schema',
  expected: (want: string, got: string) => `expected ${want}, got ${got}`,
};

/** A manager as conflict messages name it, from its identifier's fields (upstream's printManager). */
export function printManager(m: {
  manager: string;
  operation: string;
  apiVersion?: string;
  subresource?: string;
}): string {
  let s = goQuote(m.manager);
  if (m.subresource) s = `${s} with subresource ${goQuote(m.subresource)}`;
  if (m.operation === 'Update') return `${s} using ${m.apiVersion ?? ''}`;
  return s;
}

export const applyText = {
  conflictCause: (manager: string) => `conflict with ${manager}`,
  oneConflict: (manager: string, path: string) => `Apply failed with 1 conflict: conflict with ${manager}: ${path}`,
  manyConflicts: (count: number, groups: readonly { manager: string; paths: readonly string[] }[]) =>
    `Apply failed with ${count} conflicts: ${groups.flatMap((g) => [`conflicts with ${g.manager}:`, ...g.paths.map((p) => `- ${p}`)]).join('\n')}`,
  invalidObjectType: (gvk: string) => `invalid object type: ${gvk}`,
  managedFieldsMustBeNil: 'metadata.managedFields must be nil',
  typedPatch: (object: string, detail: string) => `failed to create typed patch object (${object}): ${detail}`,
  decodeManaged: (detail: string) => `failed to decode managed fields: ${detail}`,
  decodeYaml: (detail: string) => `error decoding YAML: ${detail}`,
  strictYaml: (detail: string) => `error strict decoding YAML: ${detail}`,
  uidMismatch: (uid: string) =>
    `uid mismatch: the provided object specified uid ${uid}, and no existing object was found`,
  nameMismatch: (body: string, url: string) =>
    `the name of the object (${body}) does not match the name on the URL (${url})`,
};

export const managedText = {
  operation: 'operation must be `Apply` or `Update`',
  apiVersion: 'apiVersion must not be empty',
  missingFieldsType: (i: number) => `missing fieldsType in managed fields entry ${i}`,
  invalidFieldsType: (type: string, i: number) => `invalid fieldsType ${goQuote(type)} in managed fields entry ${i}`,
  invalidSet: (i: number) => `error decoding versioned set from entry ${i}: error decoding set: not a FieldsV1 object`,
  notList: 'managedFields must be a list',
};

export const optionsText = {
  /** The kind an options error is reported on (PatchOptions.meta.k8s.io "" is invalid: …). */
  required: 'is required for apply patch',
  forceNonApply: 'may not be specified for non-apply patch',
  invalidCharacter: (rune: string, position: number) => `invalid character ${goRune(rune)} (at position ${position})`,
};

/** Go's %#U of a rune: U+0007 or U+0041 'A'. */
function goRune(r: string): string {
  const cp = r.codePointAt(0) ?? 0;
  return `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
}
