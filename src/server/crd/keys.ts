// Where custom objects live in the store. Built-in resources are kept under /registry/<group>/<plural>/ (core as
// "core"), and a CustomResourceDefinition may name any group and plural, a built-in's too: its objects then shared
// the built-in's keys, and deleting that CRD deleted the built-in's objects. Custom objects therefore live under a
// root of their own that no built-in prefix can fall under. Servers before this layout kept them under the built-in
// layout; migrate.ts moves them at start.

const CUSTOM_ROOT = '/registry/customresources/';

/** The key prefix of a custom resource's objects. */
export function customKeyPrefix(group: string, plural: string): string {
  return `${CUSTOM_ROOT}${group}/${plural}/`;
}

/** Where servers before the own-prefix layout kept a custom resource's objects: the built-in layout. */
export function legacyCustomKeyPrefix(group: string, plural: string): string {
  return `/registry/${group}/${plural}/`;
}

/** The key prefix of a built-in resource's objects. */
export function builtinKeyPrefix(group: string, plural: string): string {
  return `/registry/${group || 'core'}/${plural}/`;
}
