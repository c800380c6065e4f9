// Go's %#v of the apps/v1 values field errors carry (label maps, selectors, strategies), as kube-apiserver prints
// them inside its messages, and the error constructors that show them.

import { goQuote, type FieldError } from '../../api/field.js';
import { anyText } from '../../util/text.js';
import { GoValueFieldError, goStringSlice } from '../../api/validation/goprint.js';

type Json = Record<string, unknown>;

/** %#v of a map[string]string: keys sorted, as fmt prints maps. */
export function goStringMap(m: unknown): string {
  if (m === null || typeof m !== 'object') return 'map[string]string(nil)';
  const entries = Object.entries(m as Json).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `map[string]string{${entries.map(([k, v]) => `${goQuote(k)}:${goQuote(String(v))}`).join(', ')}}`;
}

interface Requirement {
  key?: string;
  operator?: string;
  values?: string[] | null;
}

function goRequirement(r: Requirement): string {
  const values = Array.isArray(r.values) ? goStringSlice(r.values) : '[]string(nil)';
  return `v1.LabelSelectorRequirement{Key:${goQuote(r.key ?? '')}, Operator:${goQuote(r.operator ?? '')}, Values:${values}}`;
}

/** %#v of a metav1.LabelSelector (the pointer's target: upstream dereferences a bad value before printing it). */
export function goLabelSelector(sel: unknown): string {
  if (sel === null || typeof sel !== 'object') return 'null';
  const s = sel as { matchLabels?: unknown; matchExpressions?: Requirement[] | null };
  const exprs = Array.isArray(s.matchExpressions)
    ? `[]v1.LabelSelectorRequirement{${s.matchExpressions.map(goRequirement).join(', ')}}`
    : '[]v1.LabelSelectorRequirement(nil)';
  return `v1.LabelSelector{MatchLabels:${goStringMap(s.matchLabels)}, MatchExpressions:${exprs}}`;
}

/** %#v of a strategy struct `apps.<typeName>{Type:..., RollingUpdate:...}`; a set pointer prints as an address. */
export function goStrategy(typeName: string, rollingType: string, strategy: Json): string {
  const rolling = strategy['rollingUpdate'];
  const pointer =
    rolling === undefined || rolling === null ? `(*apps.${rollingType})(nil)` : `(*apps.${rollingType})(…)`;
  return `apps.${typeName}{Type:${goQuote(anyText(strategy['type'] ?? ''))}, RollingUpdate:${pointer}}`;
}

export function notSupportedGo(path: string, value: unknown, goText: string, valid: string[]): FieldError {
  return new GoValueFieldError(
    'FieldValueNotSupported',
    path,
    value,
    goText,
    `supported values: ${valid.map(goQuote).join(', ')}`,
  );
}
