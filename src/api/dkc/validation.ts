// Validation of a NodeConfig: its `spec.configSource` and `status.config` are held to exactly the rules (and the
// messages) of Node.spec.configSource and Node.status.config, by the same functions; the revert record's source to
// the spec's, an empty source (`{}`, the node's local config) allowed. The CRD's schema cannot carry these rules in a
// form dkc server evaluates, so the server runs this on every write of the kind.

import type { FieldError } from '../field.js';
import type { NodeConfigSource, NodeConfigStatus } from '../types.js';
import { validateNodeConfigSourceSpec, validateNodeConfigStatus } from '../validation/core.js';
import type { NodeConfig } from './nodeconfig.js';

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** The field errors of a NodeConfig as it will be stored (the same on create and on update: nothing is immutable). */
export function validateNodeConfig(obj: NodeConfig): FieldError[] {
  const errs: FieldError[] = [];
  const source = obj.spec?.configSource;
  if (isObject(source)) errs.push(...validateNodeConfigSourceSpec(source as NodeConfigSource, 'spec.configSource'));
  const config = obj.status?.config;
  if (isObject(config)) errs.push(...validateNodeConfigStatus(config as NodeConfigStatus, 'status.config'));
  const previous = obj.status?.previous?.configSource;
  if (isObject(previous) && Object.keys(previous).length > 0) {
    errs.push(...validateNodeConfigSourceSpec(previous as NodeConfigSource, 'status.previous.configSource'));
  }
  return errs;
}
