// Whether one set of RBAC rules covers another, as kube-apiserver decides it before a user may grant permissions
// (component-helpers' policy comparator): every rule of the grant is broken down into atoms of one API group,
// resource, verb and name (or one URL and verb), and each atom must be covered by a single rule the user holds.
// What is left over is what the user would be granting beyond her own rights; it is compacted (atoms of one group
// and resource joined back by verb) and printed as upstream prints it. Pure functions, no I/O.

import { goQuote } from '../../gotext/quote.js';
import type { PolicyRule } from './rbac.js';

const ALL = '*';

/** One rule as atoms of at most one group, resource, verb and resource name (or one URL and verb). */
export function breakdownRule(rule: PolicyRule): PolicyRule[] {
  const atoms: PolicyRule[] = [];
  for (const group of rule.apiGroups ?? []) {
    for (const resource of rule.resources ?? []) {
      for (const verb of rule.verbs) {
        const names = rule.resourceNames ?? [];
        if (names.length) {
          for (const name of names)
            atoms.push({ apiGroups: [group], resources: [resource], verbs: [verb], resourceNames: [name] });
        } else {
          atoms.push({ apiGroups: [group], resources: [resource], verbs: [verb] });
        }
      }
    }
  }
  for (const url of rule.nonResourceURLs ?? []) {
    for (const verb of rule.verbs) atoms.push({ nonResourceURLs: [url], verbs: [verb] });
  }
  return atoms;
}

const hasAll = (set: readonly string[], wanted: readonly string[]): boolean => wanted.every((w) => set.includes(w));

function resourcesCover(owned: readonly string[], wanted: readonly string[]): boolean {
  if (owned.includes(ALL) || hasAll(owned, wanted)) return true;
  return wanted.every((path) => {
    if (owned.includes(path)) return true;
    const slash = path.indexOf('/');
    // `*/status` covers the status of every resource; a plain resource needs its own name.
    return slash >= 0 && owned.includes(`*/${path.slice(slash + 1)}`);
  });
}

const urlCovers = (owned: string, wanted: string): boolean =>
  owned === wanted || (owned.endsWith('*') && wanted.startsWith(owned.replace(/\*+$/, '')));

/** Does `owner` (any rule) cover `atom` (one of breakdownRule's)? */
function ruleCovers(owner: PolicyRule, atom: PolicyRule): boolean {
  const verbs = owner.verbs.includes(ALL) || hasAll(owner.verbs, atom.verbs);
  const groups = (owner.apiGroups ?? []).includes(ALL) || hasAll(owner.apiGroups ?? [], atom.apiGroups ?? []);
  const resources = resourcesCover(owner.resources ?? [], atom.resources ?? []);
  const urls = (atom.nonResourceURLs ?? []).every((u) => (owner.nonResourceURLs ?? []).some((o) => urlCovers(o, u)));
  const ownerNames = owner.resourceNames ?? [];
  const atomNames = atom.resourceNames ?? [];
  const names =
    atomNames.length === 0 ? ownerNames.length === 0 : ownerNames.length === 0 || hasAll(ownerNames, atomNames);
  return verbs && groups && resources && urls && names;
}

/** The atoms of `wanted` that no rule of `owned` covers (empty: `owned` covers `wanted`). */
export function uncovered(owned: readonly PolicyRule[], wanted: readonly PolicyRule[]): PolicyRule[] {
  return wanted.flatMap(breakdownRule).filter((atom) => !owned.some((o) => ruleCovers(o, atom)));
}

/** Atoms of a single group and resource and nothing else are joined into one rule per group/resource, verbs in order. */
export function compactRules(rules: readonly PolicyRule[]): PolicyRule[] {
  const out: PolicyRule[] = [];
  const simple = new Map<string, PolicyRule>();
  for (const r of rules) {
    const isSimple =
      !(r.resourceNames ?? []).length &&
      !(r.nonResourceURLs ?? []).length &&
      (r.apiGroups ?? []).length === 1 &&
      (r.resources ?? []).length === 1;
    if (!isSimple) {
      out.push(r);
      continue;
    }
    const key = JSON.stringify([r.apiGroups![0], r.resources![0]]);
    const seen = simple.get(key);
    if (seen) seen.verbs.push(...r.verbs);
    else simple.set(key, { apiGroups: [...r.apiGroups!], resources: [...r.resources!], verbs: [...r.verbs] });
  }
  return [...out, ...simple.values()];
}

/** `%q` of a []string: `["a" "b"]`. */
export const goStrings = (list: readonly string[]): string => `[${list.map(goQuote).join(' ')}]`;

/** `{APIGroups:[""], Resources:["pods"], Verbs:["get"]}`: upstream's CompactString of a rule, for escalation messages. */
export function compactString(r: PolicyRule): string {
  const parts: string[] = [];
  if (r.apiGroups?.length) parts.push(`APIGroups:${goStrings(r.apiGroups)}`);
  if (r.resources?.length) parts.push(`Resources:${goStrings(r.resources)}`);
  if (r.nonResourceURLs?.length) parts.push(`NonResourceURLs:${goStrings(r.nonResourceURLs)}`);
  if (r.resourceNames?.length) parts.push(`ResourceNames:${goStrings(r.resourceNames)}`);
  if (r.verbs.length) parts.push(`Verbs:${goStrings(r.verbs)}`);
  return `{${parts.join(', ')}}`;
}

/** The missing rules as upstream lists them: compacted, printed, de-duplicated and sorted, one a line. */
export function describeMissing(missing: readonly PolicyRule[]): string {
  const lines = [...new Set(compactRules(missing).map(compactString))];
  return lines.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).join('\n');
}
