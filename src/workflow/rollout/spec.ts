// `dkc rollout start`'s flags → a NodeConfigRollout. Pure: every flag is checked here, before any request, and a bad
// one is reported the way kubectl's flag library reports it (`invalid argument "x" for "--flag" flag: why`). Only the
// flags given are written; the CRD's schema defaults fill in the rest, on dkc server as on kube-apiserver.

import { parseLabelSelector, type LabelRequirement } from '../../api/selectors.js';
import { Duration } from '../../kubeletconfig/values.js';
import { messages, RolloutError } from './errors.js';
import {
  GROUP,
  KIND,
  VERSION,
  type IntOrString,
  type LabelSelector,
  type LabelSelectorRequirement,
} from '../../api/dkc/rollout.js';
import type { ConfigMapRef, NodeConfigRollout, RolloutSpec } from './types.js';
import { errorMessage } from '../../util/errors.js';

export interface StartFlags {
  configmap: string;
  key?: string;
  selector?: string;
  canary?: string;
  maxUnavailable?: string;
  soak?: string;
  deadline?: string;
  maxFailures?: string;
  haltOnFailure?: boolean;
  pauseAfterCanary?: boolean;
  skipIncompatible?: boolean;
}

export const DEFAULT_KEY = 'kubelet';

function invalid(flag: string, value: string, why: string): RolloutError {
  return new RolloutError('DKC_ROLLOUT_INVALID_FLAG', messages.invalidFlag(flag, value, why));
}

/** `--configmap NS/NAME` and `--key` → the configSource's configMap. */
export function parseConfigMapRef(value: string, key: string = DEFAULT_KEY): ConfigMapRef {
  const parts = value.split('/');
  if (parts.length !== 2 || !parts[0] || !parts[1]) throw invalid('--configmap', value, messages.notNamespacedName);
  if (!key) throw invalid('--key', key, messages.emptyKey);
  return { namespace: parts[0], name: parts[1], kubeletConfigKey: key };
}

/** `3` → 3, `25%` → "25%": the CRD's int-or-string with the same pattern as its schema. */
export function parseIntOrPercent(flag: string, value: string): IntOrString {
  const m = /^(0|[1-9][0-9]*)(%?)$/.exec(value.trim());
  if (!m) throw invalid(flag, value, messages.notIntOrPercent);
  const n = Number(m[1]);
  if (!Number.isSafeInteger(n) || n > 2 ** 31 - 1) throw invalid(flag, value, messages.notIntOrPercent);
  return m[2] ? `${n}%` : n;
}

export function parseCount(flag: string, value: string): number {
  const n = /^(0|[1-9][0-9]*)$/.test(value.trim()) ? Number(value.trim()) : NaN;
  if (!Number.isSafeInteger(n) || n > 2 ** 31 - 1) throw invalid(flag, value, messages.notNonNegativeInt);
  return n;
}

/** A Go duration (`30s`, `2m`, `1h30m`) that must come to whole seconds, as the spec's *Seconds fields hold. */
export function parseSeconds(flag: string, value: string, min: number): number {
  let d: Duration;
  try {
    d = Duration.parse(value);
  } catch (err) {
    throw invalid(flag, value, errorMessage(err));
  }
  if (d.sign() < 0) throw invalid(flag, value, messages.negativeDuration);
  if (d.nanoseconds % 1_000_000_000n !== 0n) throw invalid(flag, value, messages.notWholeSeconds);
  const seconds = d.toSeconds();
  if (seconds < min) throw invalid(flag, value, messages.notAtLeastOneSecond);
  if (seconds > 2 ** 31 - 1) throw invalid(flag, value, 'is too long');
  return seconds;
}

/** A timeout for `status --watch`, in milliseconds. */
export function parseTimeout(flag: string, value: string): number {
  let d: Duration;
  try {
    d = Duration.parse(value);
  } catch (err) {
    throw invalid(flag, value, errorMessage(err));
  }
  if (d.sign() <= 0) throw invalid(flag, value, messages.notPositiveDuration);
  return d.toMilliseconds();
}

function toExpression(r: LabelRequirement, selector: string): LabelSelectorRequirement {
  switch (r.operator) {
    case 'in':
    case 'notin':
    case '!=':
      return { key: r.key, operator: r.operator === 'in' ? 'In' : 'NotIn', values: r.values };
    case 'exists':
      return { key: r.key, operator: 'Exists' };
    case '!':
      return { key: r.key, operator: 'DoesNotExist' };
    default:
      throw invalid('--selector', selector, messages.selectorOperator(r.operator === 'gt' ? '>' : '<'));
  }
}

/** kubectl's selector syntax (`pool=blue,zone in (a,b),!legacy`) → metav1.LabelSelector; "" selects every node. */
export function parseNodeSelector(selector: string): LabelSelector {
  let reqs: LabelRequirement[];
  try {
    reqs = parseLabelSelector(selector);
  } catch (err) {
    throw invalid('--selector', selector, errorMessage(err));
  }
  const out: LabelSelector = {};
  for (const r of reqs) {
    if (r.operator === '=' || r.operator === '==') (out.matchLabels ??= {})[r.key] = r.values[0]!;
    else (out.matchExpressions ??= []).push(toExpression(r, selector));
  }
  return out;
}

function buildSpec(flags: StartFlags): RolloutSpec {
  const spec: RolloutSpec = {
    configSource: { configMap: parseConfigMapRef(flags.configmap, flags.key ?? DEFAULT_KEY) },
    nodeSelector: parseNodeSelector(flags.selector ?? ''),
  };
  const strategy: NonNullable<RolloutSpec['strategy']> = {};
  if (flags.canary !== undefined) strategy.canary = parseIntOrPercent('--canary', flags.canary);
  if (flags.maxUnavailable !== undefined)
    strategy.maxUnavailable = parseIntOrPercent('--max-unavailable', flags.maxUnavailable);
  if (flags.soak !== undefined) strategy.soakSeconds = parseSeconds('--soak', flags.soak, 0);
  if (flags.pauseAfterCanary) strategy.pauseAfterCanary = true;
  if (flags.skipIncompatible) strategy.skipIncompatible = true;
  if (Object.keys(strategy).length > 0) spec.strategy = strategy;
  if (flags.deadline !== undefined) spec.progressDeadlineSeconds = parseSeconds('--deadline', flags.deadline, 1);
  if (flags.maxFailures !== undefined) spec.maxFailures = parseCount('--max-failures', flags.maxFailures);
  if (flags.haltOnFailure) spec.failurePolicy = 'Halt';
  return spec;
}

/** The object `dkc rollout start NAME …` creates. Throws RolloutError('DKC_ROLLOUT_INVALID_FLAG') for the first bad flag. */
export function buildRollout(name: string, flags: StartFlags): NodeConfigRollout {
  return { apiVersion: `${GROUP}/${VERSION}`, kind: KIND, metadata: { name }, spec: buildSpec(flags) };
}
