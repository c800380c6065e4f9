// Custom-resource schema processing, the pure half of serving CustomResourceDefinitions: a CRD version's
// openAPIV3Schema compiled once into pruning, defaulting and validation with kube-apiserver's semantics and
// wording. The serving side calls, for a request body: prune → applyDefaults → validate; for an object read
// from storage: prune → applyDefaults.

import type { ValidateFunction } from 'ajv';
import type { FieldError } from '../../api/field.js';
import { validateEmbedded } from './embedded.js';
import { validateListTypes } from './listtype.js';
import { asNode, type SchemaNode } from './nodes.js';
import { defaultObject, pruneObject } from './prune.js';
import { compileValidator, translate } from './validate.js';

export { validateStructural } from './structural.js';
export { evaluateColumn, parseJsonPath, JsonPathError, validateSimpleJsonPath } from './jsonpath.js';
export { unknownField } from './messages.js';

export interface CustomResourceSchema {
  /** Fills schema defaults in place (applied when a request body is read AND when an object is read from storage). */
  applyDefaults(obj: Record<string, unknown>): void;
  /**
   * Removes fields the schema does not declare (honouring x-kubernetes-preserve-unknown-fields,
   * additionalProperties, x-kubernetes-embedded-resource; apiVersion, kind and metadata stay at the root) and
   * returns their paths sorted, as kube-apiserver names them (`spec.foo`, `spec.items[0].bar`; see unknownField).
   */
  prune(obj: Record<string, unknown>): string[];
  /**
   * kube-apiserver's field errors for an object already pruned and defaulted, in a stable order and in its
   * sequence: the schema's, embedded resources' TypeMeta/ObjectMeta, then list-type set/map uniqueness
   * (the root's TypeMeta and ObjectMeta are the caller's to check, before these).
   */
  validate(obj: Record<string, unknown>): FieldError[];
}

class CompiledSchema implements CustomResourceSchema {
  private readonly validator: ValidateFunction;

  constructor(private readonly root: SchemaNode) {
    this.validator = compileValidator(root);
  }

  applyDefaults(obj: Record<string, unknown>): void {
    defaultObject(obj, this.root);
  }

  prune(obj: Record<string, unknown>): string[] {
    return pruneObject(obj, this.root);
  }

  validate(obj: Record<string, unknown>): FieldError[] {
    const schemaErrors = this.validator(obj) ? [] : translate(this.validator.errors, obj);
    return [...schemaErrors, ...validateEmbedded(obj, this.root), ...validateListTypes(obj, this.root)];
  }
}

/**
 * Compiles one CRD version's schema (milliseconds; the first call also builds ajv's instance): callers keep the
 * result per CRD version. Any schema compiles — keywords of the wrong JSON type are ignored, as the structural
 * checks (validateStructural) are where a CRD is refused.
 */
export function compileSchema(openAPIV3Schema: unknown): CustomResourceSchema {
  return new CompiledSchema(
    asNode(openAPIV3Schema) ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
  );
}
