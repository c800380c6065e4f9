// PodDisruptionBudgets as served: policy/v1 and policy/v1beta1 over one storage (the group and plural name the
// stored objects; each version presents them as its own), with a status subresource, generation, kube's validation
// and the printers' columns. A new budget starts with the empty status kube's PrepareForCreate gives it.

import type { KubeObject } from '../../api/types.js';
import type { PodDisruptionBudget } from '../../api/workloads.js';
import { ageCol, col, created, nameCol } from '../columns.js';
import type { ResourceDef } from '../resourcedef.js';
import { columnText } from './messages.js';
import { validateBudget, validateBudgetUpdate } from './validation.js';

const emptyStatus = () => ({ disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 });

function budgetRow(o: KubeObject, now: number): unknown[] {
  const pdb = o as PodDisruptionBudget;
  const shown = (v: number | string | null | undefined) =>
    v === undefined || v === null ? columnText.none : String(v);
  return [
    o.metadata.name,
    shown(pdb.spec?.minAvailable),
    shown(pdb.spec?.maxUnavailable),
    pdb.status?.disruptionsAllowed ?? 0,
    created(o, now),
  ];
}

function budgets(version: string): ResourceDef {
  return {
    group: 'policy',
    version,
    plural: 'poddisruptionbudgets',
    singular: 'poddisruptionbudget',
    kind: 'PodDisruptionBudget',
    namespaced: true,
    shortNames: ['pdb'],
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    statusSubresource: true,
    proxySubresource: false,
    structFields: ['spec', 'status'],
    generation: true,
    fields: {},
    columns: [
      nameCol,
      col('Min Available', columnText.minAvailable),
      col('Max Unavailable', columnText.maxUnavailable),
      col('Allowed Disruptions', columnText.allowed, { type: 'integer' }),
      ageCol,
    ],
    row: budgetRow,
    prepareForCreate: (obj) => {
      obj['status'] = emptyStatus();
    },
    validation: { create: validateBudget, update: validateBudgetUpdate },
  };
}

export const podDisruptionBudgets = budgets('v1');
export const podDisruptionBudgetsV1beta1 = budgets('v1beta1');
