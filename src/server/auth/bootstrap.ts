// Bringing a cluster's default roles up to this version's, as kube-apiserver's bootstrap-roles step does on every
// start: a default Role or ClusterRole annotated `rbac.authorization.kubernetes.io/autoupdate: "true"` gets the
// labels, rules and aggregation selectors it lacks (never loses any: an operator's additions stay), and one annotated
// "false" is left alone. So an existing cluster's `view` learns to aggregate, and `system:basic-user` to answer
// `kubectl auth whoami`. Roles that do not exist yet are created by the server's start as every built-in object is.

import { deepEqual } from '../../api/equal.js';
import { StatusError } from '../../api/errors.js';
import type { KubeObject } from '../../api/types.js';
import { klog } from '../../util/klog.js';
import type { UserInfo } from '../authz.js';
import type { ResourceDef } from '../resourcedef.js';
import type { ResourceStorage, WriteContext } from '../resources.js';
import { clusterRoleSelectors } from './aggregation.js';
import { rulesOf } from './rbac.js';
import { uncovered } from './rulecover.js';

export const AUTOUPDATE_ANNOTATION = 'rbac.authorization.kubernetes.io/autoupdate';

/** The role to store instead of `existing`, or undefined when it is already reconciled (or protected). */
export function reconcileRole(existing: KubeObject, expected: KubeObject): KubeObject | undefined {
  if (existing.metadata.annotations?.[AUTOUPDATE_ANNOTATION] === 'false') return undefined;
  const next = structuredClone(existing);
  next.metadata.labels = { ...expected.metadata.labels, ...existing.metadata.labels };
  next.metadata.annotations = { ...expected.metadata.annotations, ...existing.metadata.annotations };
  const wanted = clusterRoleSelectors(expected);
  if (wanted) {
    // An aggregating role's rules are the aggregation's to write; only its selectors are reconciled.
    const have = clusterRoleSelectors(existing) ?? [];
    const add = wanted.filter((w) => !have.some((h) => deepEqual(h, w)));
    if (add.length) next['aggregationRule'] = { clusterRoleSelectors: [...have, ...add] };
  } else {
    const missing = uncovered(rulesOf(existing), rulesOf(expected));
    if (missing.length)
      next['rules'] = [...(Array.isArray(existing['rules']) ? (existing['rules'] as unknown[]) : []), ...missing];
    if (existing['aggregationRule']) delete next['aggregationRule'];
  }
  return deepEqual(next, existing) ? undefined : next;
}

const SYSTEM: UserInfo = { name: 'system:apiserver', groups: ['system:masters'] };
const systemWrite = (): WriteContext => ({ user: SYSTEM, dryRun: false, fieldValidation: 'Ignore', warnings: [] });

/** Reconciles each default role of `def` that exists; a failure is logged, not fatal (as upstream's post-start hook retries). */
export async function reconcileDefaultRoles(storage: ResourceStorage, def: ResourceDef): Promise<void> {
  for (const expected of def.builtin ?? []) {
    const namespace = expected.metadata.namespace ?? '';
    const name = expected.metadata.name ?? '';
    try {
      const existing = await storage.get(namespace, name);
      const next = reconcileRole(existing, expected);
      if (next) {
        await storage.update(namespace, name, next, '', systemWrite());
        klog.info(`updated default ${def.kind} ${namespace ? `${namespace}/` : ''}${name} with this version's rules`);
      }
    } catch (err) {
      if (err instanceof StatusError && err.code === 404) continue;
      klog.error(`could not reconcile default ${def.kind} ${name}: ${(err as Error)?.message ?? String(err)}`);
    }
  }
}
