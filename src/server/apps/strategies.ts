// The update strategies of the apps/v1 kinds as kube-apiserver validates them (ValidateDeploymentStrategy,
// ValidateDaemonSetUpdateStrategy, a StatefulSet's podManagementPolicy and updateStrategy): the type's values, the
// rolling-update bounds (a count or a percentage; maxSurge and maxUnavailable not both 0). Pure.

import { goQuote, field, type FieldError } from '../../api/field.js';
import type { IntOrString } from '../../api/apps.js';
import { anyText } from '../../util/text.js';
import { invalidGo } from '../../api/validation/goprint.js';
import { IS_NEGATIVE_ERROR_MSG } from '../../api/validation/index.js';
import { goIntOrString, notMoreThan100Percent, positiveIntOrPercent } from '../disruptionbudgets/validation.js';
import { goStrategy, notSupportedGo } from './goprint.js';
import { appsText, DAEMONSET_STRATEGIES, DEPLOYMENT_STRATEGIES } from './messages.js';

type Json = Record<string, unknown>;

const isSet = (v: unknown) => v !== undefined && v !== null;
const asIntOrString = (v: unknown): IntOrString => (typeof v === 'number' || typeof v === 'string' ? v : 0);

/** getIntOrPercentValue: a percentage's number, a count, or a string's integer value (0 when it is none). */
function intOrPercentValue(v: IntOrString): number {
  if (typeof v === 'number') return v;
  const digits = /^[0-9]+%$/.test(v) ? v.slice(0, -1) : v;
  return /^[-+]?[0-9]+$/.test(digits) ? Number(digits) : 0;
}

/** ValidateNonnegativeField. */
export function nonNegative(value: unknown, path: string): FieldError[] {
  return typeof value === 'number' && value < 0 ? [field.invalid(path, value, IS_NEGATIVE_ERROR_MSG)] : [];
}

function rollingDeploymentErrors(rolling: Json, path: string): FieldError[] {
  const unavailable = asIntOrString(rolling['maxUnavailable']);
  const surge = asIntOrString(rolling['maxSurge']);
  const errs = [
    ...positiveIntOrPercent(unavailable, `${path}.maxUnavailable`),
    ...positiveIntOrPercent(surge, `${path}.maxSurge`),
  ];
  if (intOrPercentValue(unavailable) === 0 && intOrPercentValue(surge) === 0)
    errs.push(invalidGo(`${path}.maxUnavailable`, unavailable, goIntOrString(unavailable), appsText.bothZero));
  errs.push(...notMoreThan100Percent(unavailable, `${path}.maxUnavailable`));
  return errs;
}

export function deploymentStrategyErrors(strategy: Json): FieldError[] {
  const path = 'spec.strategy';
  const rolling = strategy['rollingUpdate'];
  switch (strategy['type']) {
    case 'Recreate':
      return isSet(rolling) ? [field.forbidden(`${path}.rollingUpdate`, appsText.recreateRollingUpdate)] : [];
    case 'RollingUpdate':
      if (!isSet(rolling) || typeof rolling !== 'object')
        return [field.required(`${path}.rollingUpdate`, appsText.rollingUpdateNil)];
      return rollingDeploymentErrors(rolling as Json, `${path}.rollingUpdate`);
    default:
      return [
        notSupportedGo(
          path,
          strategy,
          goStrategy('DeploymentStrategy', 'RollingUpdateDeployment', strategy),
          DEPLOYMENT_STRATEGIES,
        ),
      ];
  }
}

function rollingDaemonSetErrors(rolling: Json, path: string): FieldError[] {
  const unavailable = asIntOrString(rolling['maxUnavailable']);
  const surge = asIntOrString(rolling['maxSurge']);
  const errs = [
    ...positiveIntOrPercent(unavailable, `${path}.maxUnavailable`),
    ...positiveIntOrPercent(surge, `${path}.maxSurge`),
    ...notMoreThan100Percent(unavailable, `${path}.maxUnavailable`),
    ...notMoreThan100Percent(surge, `${path}.maxSurge`),
  ];
  const hasUnavailable = intOrPercentValue(unavailable) !== 0;
  const hasSurge = intOrPercentValue(surge) !== 0;
  if (hasUnavailable && hasSurge)
    errs.push(invalidGo(`${path}.maxSurge`, surge, goIntOrString(surge), appsText.dsSurgeAndUnavailable));
  if (!hasUnavailable && !hasSurge)
    errs.push(field.required(`${path}.maxUnavailable`, appsText.dsNeitherSurgeNorUnavailable));
  return errs;
}

export function daemonSetStrategyErrors(strategy: Json): FieldError[] {
  const path = 'spec.updateStrategy';
  const rolling = strategy['rollingUpdate'];
  switch (strategy['type']) {
    case 'OnDelete':
      return [];
    case 'RollingUpdate':
      if (!isSet(rolling) || typeof rolling !== 'object') return [field.required(`${path}.rollingUpdate`)];
      return rollingDaemonSetErrors(rolling as Json, `${path}.rollingUpdate`);
    default:
      return [
        notSupportedGo(
          path,
          strategy,
          goStrategy('DaemonSetUpdateStrategy', 'RollingUpdateDaemonSet', strategy),
          DAEMONSET_STRATEGIES,
        ),
      ];
  }
}

/** %#v of a StatefulSet's rolling update block. */
function goRollingStatefulSet(rolling: Json): string {
  const max = rolling['maxUnavailable'];
  const pointer = isSet(max) ? '(*intstr.IntOrString)(…)' : '(*intstr.IntOrString)(nil)';
  const partition = typeof rolling['partition'] === 'number' ? rolling['partition'] : 0;
  return `apps.RollingUpdateStatefulSetStrategy{Partition:${partition}, MaxUnavailable:${pointer}}`;
}

function rollingStatefulSetErrors(rolling: Json, path: string): FieldError[] {
  const errs = nonNegative(rolling['partition'], `${path}.partition`);
  if (!isSet(rolling['maxUnavailable'])) return errs;
  const max = asIntOrString(rolling['maxUnavailable']);
  errs.push(...positiveIntOrPercent(max, `${path}.maxUnavailable`));
  if (intOrPercentValue(max) === 0)
    errs.push(invalidGo(`${path}.maxUnavailable`, max, goIntOrString(max), appsText.stsMaxUnavailableZero));
  errs.push(...notMoreThan100Percent(max, `${path}.maxUnavailable`));
  return errs;
}

function updateStrategyErrors(strategy: Json): FieldError[] {
  const path = 'spec.updateStrategy';
  const rolling = strategy['rollingUpdate'];
  switch (strategy['type'] ?? '') {
    case '':
      return [field.required(path)];
    case 'OnDelete':
      return isSet(rolling)
        ? [invalidGo(`${path}.rollingUpdate`, rolling, goRollingStatefulSet(rolling as Json), appsText.stsRollingOnly)]
        : [];
    case 'RollingUpdate':
      return isSet(rolling) ? rollingStatefulSetErrors(rolling as Json, `${path}.rollingUpdate`) : [];
    default:
      return [
        invalidGo(
          path,
          strategy,
          goStrategy('StatefulSetUpdateStrategy', 'RollingUpdateStatefulSetStrategy', strategy),
          appsText.stsStrategy,
        ),
      ];
  }
}

/** A StatefulSet's podManagementPolicy and updateStrategy (spec is the StatefulSet's spec). */
export function statefulSetStrategyErrors(spec: Json): FieldError[] {
  const policy = spec['podManagementPolicy'] ?? '';
  const errs: FieldError[] = [];
  if (policy === '') errs.push(field.required('spec.podManagementPolicy'));
  else if (policy !== 'OrderedReady' && policy !== 'Parallel')
    errs.push(invalidGo('spec.podManagementPolicy', policy, goQuote(anyText(policy)), appsText.stsPolicy));
  errs.push(...updateStrategyErrors((spec['updateStrategy'] as Json | undefined) ?? {}));
  return errs;
}
