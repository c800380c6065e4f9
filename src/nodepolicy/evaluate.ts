// The NodeConfigPolicy decision, pure: from the policies, a node's labels, and the change from the config the node
// runs to the config it is to be given — both as the node runs them, its flags applied (effectiveChange, flags.ts) —
// the violations. A changed leaf (diffConfigs: both sides decoded and defaulted, so spelling out a default is no
// change; a field a flag holds never changes) outside a policy's allowedFields violates it; so does a bounded field whose value in the
// target config lies outside its bounds, whether or not this change touches it — the bounds say what a node of the
// policy may run. Bounds compare numbers as numbers, and strings as Durations or else as Quantities.

import { matchesLabels, type Labels } from '../api/selectors.js';
import { diffEncoded, Duration, formatPath, Quantity, toJSONObject, type JSONValue } from '../kubeletconfig/index.js';
import type { EffectiveChange } from './flags.js';
import type { BoundValue, Enforcement } from '../api/dkc/policy.js';
import type { NodeConfigPolicy } from './spec.js';

export type ViolationReason =
  | { kind: 'not-allowed' }
  | { kind: 'below-minimum'; bound: BoundValue }
  | { kind: 'above-maximum'; bound: BoundValue }
  | { kind: 'not-comparable'; bound: BoundValue };

export interface Violation {
  policy: string;
  enforcement: Enforcement;
  /** The field in YAML path form, as `dkc config diff` prints it. */
  path: string;
  /** Absent: unset on that side. */
  old?: JSONValue;
  new?: JSONValue;
  reason: ViolationReason;
}

type Leaf = { keys: string[]; value: JSONValue };

const isObject = (v: JSONValue | undefined): v is { [key: string]: JSONValue } =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Every leaf of an encoded config (lists are leaves, as the kubelet replaces a list whole). */
function leaves(v: JSONValue, keys: string[] = [], out: Leaf[] = []): Leaf[] {
  if (isObject(v) && Object.keys(v).length > 0) for (const [k, x] of Object.entries(v)) leaves(x, [...keys, k], out);
  else if (keys.length > 0) out.push({ keys, value: v });
  return out;
}

/** A path as a policy may write it: `evictionHard["memory.available"]`, or the plainer `evictionHard.memory.available`. */
function pathForms(keys: readonly string[]): [string, string] {
  return [formatPath(keys), keys.join('.')];
}

/** Whether a policy path pattern covers a field: exact, `a.*` for everything under `a`, or `*`. */
export function fieldAllowed(patterns: readonly string[], keys: readonly string[]): boolean {
  const forms = pathForms(keys);
  return patterns.some((p) => {
    if (p === '*') return true;
    if (!p.endsWith('.*')) return forms.includes(p);
    const prefix = p.slice(0, -2);
    return forms.some((f) => f.startsWith(`${prefix}.`) || f.startsWith(`${prefix}[`));
  });
}

function attempt<T>(parse: (text: string) => T, text: string): T | undefined {
  try {
    return parse(text);
  } catch {
    return undefined;
  }
}

const parseDuration = (t: string): Duration => Duration.parse(t);
const parseQuantity = (t: string): Quantity => Quantity.parse(t);
const sign = (x: bigint | number, y: bigint | number): -1 | 0 | 1 => (x < y ? -1 : x > y ? 1 : 0);

/** -1, 0 or 1 as `value` is below, at or above `bound`; undefined when they cannot be compared. */
export function compareToBound(value: JSONValue, bound: BoundValue): -1 | 0 | 1 | undefined {
  if (typeof value === 'number' && typeof bound === 'number') return sign(value, bound);
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  const [a, b] = [String(value), String(bound)];
  const [da, db] = [attempt(parseDuration, a), attempt(parseDuration, b)];
  if (da && db) return sign(da.nanoseconds, db.nanoseconds);
  const [qa, qb] = [attempt(parseQuantity, a), attempt(parseQuantity, b)];
  return qa && qb ? qa.cmp(qb) : undefined;
}

function boundReason(
  value: JSONValue,
  bound: { minimum?: BoundValue; maximum?: BoundValue },
): ViolationReason | undefined {
  for (const [which, limit] of [['minimum', bound.minimum] as const, ['maximum', bound.maximum] as const]) {
    if (limit === undefined) continue;
    const c = compareToBound(value, limit);
    if (c === undefined) return { kind: 'not-comparable', bound: limit };
    if (which === 'minimum' && c < 0) return { kind: 'below-minimum', bound: limit };
    if (which === 'maximum' && c > 0) return { kind: 'above-maximum', bound: limit };
  }
  return undefined;
}

function violation(
  p: NodeConfigPolicy,
  keys: readonly string[],
  old: JSONValue | undefined,
  next: JSONValue | undefined,
  reason: ViolationReason,
): Violation {
  const v: Violation = { policy: p.name, enforcement: p.enforcement, path: formatPath(keys), reason };
  if (old !== undefined) v.old = old;
  if (next !== undefined) v.new = next;
  return v;
}

function boundViolations(p: NodeConfigPolicy, current: Leaf[], target: Leaf[]): Violation[] {
  const out: Violation[] = [];
  for (const [path, bound] of Object.entries(p.bounds)) {
    const leaf = target.find((l) => pathForms(l.keys).includes(path));
    if (!leaf) continue;
    const reason = boundReason(leaf.value, bound);
    if (!reason) continue;
    const before = current.find((l) => pathForms(l.keys).includes(path));
    out.push(violation(p, leaf.keys, before?.value, leaf.value, reason));
  }
  return out;
}

/**
 * The policies that govern a node with these labels. Given several label sets (a Node before and after a request
 * that also relabels it), a policy that selects any of them governs: a relabel cannot step out of a policy.
 */
export function governing(
  policies: readonly NodeConfigPolicy[],
  labels: Labels | readonly Labels[],
): NodeConfigPolicy[] {
  const sets: readonly Labels[] = Array.isArray(labels) ? labels : [labels as Labels];
  return policies.filter((p) => sets.some((l) => matchesLabels(p.selector, l)));
}

/** A kubelet minor's schema for encoding (KubeletVersion.schema()); the 1.22 one when absent. */
export type ConfigSchema = Parameters<typeof toJSONObject>[1];

/** Every violation of the governing policies by a change (effectiveChange: the flags already applied), policy by policy. */
export function evaluate(
  policies: readonly NodeConfigPolicy[],
  labels: Labels | readonly Labels[],
  change: EffectiveChange,
  schema?: ConfigSchema,
): Violation[] {
  const mine = governing(policies, labels);
  if (mine.length === 0) return [];
  const [before, after] = [toJSONObject(change.before, schema), toJSONObject(change.after, schema)];
  const changes = diffEncoded(before, after);
  const [currentLeaves, targetLeaves] = [leaves(before), leaves(after)];
  const out: Violation[] = [];
  for (const p of mine) {
    if (p.allowedFields) {
      for (const c of changes)
        if (!fieldAllowed(p.allowedFields, c.keys))
          out.push(violation(p, c.keys, c.old, c.new, { kind: 'not-allowed' }));
    }
    out.push(...boundViolations(p, currentLeaves, targetLeaves));
  }
  return out;
}
