// Nodes as kube-apiserver 1.24 and later store them (pkg/registry/core/node/strategy.go, dropDisabledFields and
// nodeStatusConfigInUse): spec.configSource and status.config are dropped on create; a main-resource update drops
// spec.configSource unless the stored Node already carries one, a status update drops status.config unless it
// already carries that. A Node that never had them can never gain them; one that had them keeps them. The warning
// follows the stored object, so it shows only where the Node already carries the field. Pure.

import type { KubeObject } from '../../api/types.js';
import { nodeWarnings } from '../../api/validation/core.js';
import { nodes } from '../builtins.js';
import type { ResourceDef, ResourceStrategy } from '../resourcedef.js';
import { configSourceWarning, keepsNodeConfigSource, type KubeVersion } from './version.js';

type Fields = Record<string, unknown>;
const part = (obj: KubeObject | undefined, key: 'spec' | 'status'): Fields | undefined => {
  const v = obj?.[key];
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Fields) : undefined;
};
/** Go's `!= nil`: absent and null are both nil. */
const inUse = (obj: KubeObject | undefined, key: 'spec' | 'status', field: string): boolean => {
  const v = part(obj, key)?.[field];
  return v !== undefined && v !== null;
};
const drop = (obj: KubeObject, key: 'spec' | 'status', field: string): void => {
  const p = part(obj, key);
  if (p) delete p[field];
};

/** The Node strategy of a release that no longer keeps the fields, or undefined for one that does. */
export function nodeStrategy(version: KubeVersion): ResourceStrategy | undefined {
  if (keepsNodeConfigSource(version)) return undefined;
  const warning = configSourceWarning(version);
  return {
    prepare(obj, old, subresource) {
      if (!old) {
        drop(obj, 'spec', 'configSource');
        drop(obj, 'status', 'config');
      } else if (subresource === 'status') {
        if (!inUse(old, 'status', 'config')) drop(obj, 'status', 'config');
      } else if (!inUse(old, 'spec', 'configSource')) {
        drop(obj, 'spec', 'configSource');
      }
    },
    warnings: (obj) => [...(inUse(obj, 'spec', 'configSource') ? [warning] : []), ...nodeWarnings(obj)],
  };
}

/** The Node resource as the release serves it. */
export function nodesAt(version: KubeVersion | undefined): ResourceDef {
  const strategy = version ? nodeStrategy(version) : undefined;
  return strategy ? { ...nodes, strategy } : nodes;
}
