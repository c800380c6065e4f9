// RBAC (rbac.authorization.k8s.io/v1) evaluation with upstream's semantics: a request is allowed when a rule of a
// role bound to one of the user's subjects covers it — verbs, apiGroups, resources (`*`, `res/sub`, `*/sub`),
// resourceNames, non-resource URLs (`*` and `prefix*`). ClusterRoleBindings grant everywhere; RoleBindings grant in
// their namespace only, whichever kind of role they refer to. No rule → no opinion (the chain then denies).
//
// The same index lists the rules a user holds in a namespace (upstream's rule resolver): what
// SelfSubjectRulesReview answers and what the escalation check compares a grant against.
//
// The role and binding objects come from the server's watch caches; the index built from them is rebuilt only when
// one of those caches has moved to a new revision, so a steady cluster pays for one rebuild, not one per request.

import type { KubeObject } from '../../api/types.js';
import type { AuthorizationAttributes, Authorizer, Decision, RuleSet, UserInfo } from '../authz.js';
import { messages } from './messages.js';

export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

export interface Subject {
  kind: string;
  name: string;
  namespace?: string;
  apiGroup?: string;
}

export interface RoleRef {
  apiGroup?: string;
  kind: string;
  name: string;
}

/** Current RBAC objects plus a token that changes whenever any of them may have changed. */
export interface RbacSource {
  revision(): string;
  roles(): KubeObject[];
  clusterRoles(): KubeObject[];
  roleBindings(): KubeObject[];
  clusterRoleBindings(): KubeObject[];
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/** The rules of a Role or ClusterRole object, each list read as strings only. */
export function rulesOf(obj: KubeObject | undefined): PolicyRule[] {
  const raw = obj?.['rules'];
  if (!Array.isArray(raw)) return [];
  return raw
    .filter((r): r is Record<string, unknown> => r !== null && typeof r === 'object')
    .map((r) => ({
      verbs: strings(r['verbs']),
      apiGroups: strings(r['apiGroups']),
      resources: strings(r['resources']),
      resourceNames: strings(r['resourceNames']),
      nonResourceURLs: strings(r['nonResourceURLs']),
    }));
}

function subjectsOf(obj: KubeObject): Subject[] {
  const raw = obj['subjects'];
  if (!Array.isArray(raw)) return [];
  return raw.filter(
    (s: unknown): s is Subject =>
      s !== null &&
      typeof s === 'object' &&
      'kind' in s &&
      typeof s.kind === 'string' &&
      'name' in s &&
      typeof s.name === 'string',
  );
}

function roleRefOf(obj: KubeObject): RoleRef | undefined {
  const r = obj['roleRef'] as RoleRef | undefined;
  return r && typeof r.kind === 'string' && typeof r.name === 'string' ? r : undefined;
}

/** Does `subject` (of a binding in `bindingNamespace`, '' for cluster bindings) name this user? */
export function appliesTo(user: UserInfo, subject: Subject, bindingNamespace: string): boolean {
  switch (subject.kind) {
    case 'User':
      return user.name === subject.name;
    case 'Group':
      return user.groups.includes(subject.name);
    case 'ServiceAccount': {
      const ns = subject.namespace || bindingNamespace;
      return ns !== '' && user.name === `system:serviceaccount:${ns}:${subject.name}`;
    }
    default:
      return false;
  }
}

function has(list: string[] | undefined, v: string): boolean {
  return !!list && (list.includes('*') || list.includes(v));
}

function resourceMatches(rule: PolicyRule, resource: string, subresource: string): boolean {
  const combined = subresource ? `${resource}/${subresource}` : resource;
  for (const r of rule.resources ?? []) {
    if (r === '*' || r === combined) return true;
    if (subresource && r === `*/${subresource}`) return true;
  }
  return false;
}

function nonResourceURLMatches(rule: PolicyRule, path: string): boolean {
  for (const u of rule.nonResourceURLs ?? []) {
    if (u === '*' || u === path) return true;
    if (u.endsWith('*') && path.startsWith(u.slice(0, -1))) return true;
  }
  return false;
}

/** One rule against one request, as upstream's RuleAllows. */
export function ruleAllows(attrs: AuthorizationAttributes, rule: PolicyRule): boolean {
  if (!has(rule.verbs, attrs.verb)) return false;
  if (!attrs.isResourceRequest) return nonResourceURLMatches(rule, attrs.path);
  if (!has(rule.apiGroups, attrs.apiGroup)) return false;
  if (!resourceMatches(rule, attrs.resource, attrs.subresource)) return false;
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(attrs.name);
}

interface BindingEntry {
  namespace: string;
  subjects: Subject[];
  ref: RoleRef;
}

/** A binding that names a role which does not exist: it grants nothing, and rule listings report it. */
export interface MissingRole {
  kind: string;
  name: string;
  /** The binding's namespace ('' for a ClusterRoleBinding), where a Role would have been looked up. */
  namespace: string;
}

/** The rules that apply to a user in a namespace, and the bindings among hers whose role is missing. */
export interface ResolvedRules {
  rules: PolicyRule[];
  missing: MissingRole[];
}

class RbacIndex {
  readonly clusterRoles = new Map<string, PolicyRule[]>();
  /** `<namespace>/<name>` → rules. */
  readonly roles = new Map<string, PolicyRule[]>();
  readonly clusterBindings: BindingEntry[] = [];
  /** namespace → its RoleBindings. */
  readonly bindings = new Map<string, BindingEntry[]>();

  constructor(src: RbacSource) {
    for (const r of src.clusterRoles()) this.clusterRoles.set(r.metadata.name ?? '', rulesOf(r));
    for (const r of src.roles()) this.roles.set(`${r.metadata.namespace ?? ''}/${r.metadata.name ?? ''}`, rulesOf(r));
    for (const b of src.clusterRoleBindings()) {
      const ref = roleRefOf(b);
      if (ref) this.clusterBindings.push({ namespace: '', subjects: subjectsOf(b), ref });
    }
    for (const b of src.roleBindings()) {
      const ref = roleRefOf(b);
      const ns = b.metadata.namespace ?? '';
      if (!ref || !ns) continue;
      let list = this.bindings.get(ns);
      if (!list) this.bindings.set(ns, (list = []));
      list.push({ namespace: ns, subjects: subjectsOf(b), ref });
    }
  }

  /** The referenced role's rules; undefined when it does not exist. */
  private rulesFor(b: BindingEntry): PolicyRule[] | undefined {
    if (b.ref.kind === 'ClusterRole') return this.clusterRoles.get(b.ref.name);
    if (b.ref.kind === 'Role' && b.namespace) return this.roles.get(`${b.namespace}/${b.ref.name}`);
    return undefined;
  }

  allows(attrs: AuthorizationAttributes): boolean {
    const visit = (b: BindingEntry): boolean =>
      b.subjects.some((s) => appliesTo(attrs.user, s, b.namespace)) &&
      (this.rulesFor(b) ?? []).some((r) => ruleAllows(attrs, r));
    if (this.clusterBindings.some(visit)) return true;
    if (!attrs.namespace) return false;
    return (this.bindings.get(attrs.namespace) ?? []).some(visit);
  }

  /** Cluster bindings first, then the namespace's bindings, each role's rules in order (upstream's VisitRulesFor). */
  resolve(user: UserInfo, namespace: string): ResolvedRules {
    const out: ResolvedRules = { rules: [], missing: [] };
    const visit = (b: BindingEntry): void => {
      if (!b.subjects.some((s) => appliesTo(user, s, b.namespace))) return;
      const rules = this.rulesFor(b);
      if (rules) out.rules.push(...rules);
      else out.missing.push({ kind: b.ref.kind, name: b.ref.name, namespace: b.namespace });
    };
    this.clusterBindings.forEach(visit);
    if (namespace) (this.bindings.get(namespace) ?? []).forEach(visit);
    return out;
  }
}

/** The RBAC index over a source, rebuilt when the source's revision moves. */
export class RbacRules {
  private index?: RbacIndex;
  private indexRevision = '';

  constructor(private readonly source: RbacSource) {}

  private current(): RbacIndex {
    const rev = this.source.revision();
    if (!this.index || rev !== this.indexRevision) {
      this.index = new RbacIndex(this.source);
      this.indexRevision = rev;
    }
    return this.index;
  }

  allows(attrs: AuthorizationAttributes): boolean {
    return this.current().allows(attrs);
  }

  /** Every rule bound to the user that applies in `namespace` ('' for the cluster scope only). */
  resolve(user: UserInfo, namespace: string): ResolvedRules {
    return this.current().resolve(user, namespace);
  }
}

export class RbacAuthorizer implements Authorizer {
  readonly rules: RbacRules;

  constructor(source: RbacSource | RbacRules) {
    this.rules = source instanceof RbacRules ? source : new RbacRules(source);
  }

  authorize(attrs: AuthorizationAttributes): Decision {
    if (this.rules.allows(attrs)) return { decision: 'allow', reason: '' };
    return { decision: 'no-opinion', reason: '' };
  }

  /** As upstream's RBAC authorizer: resource and URL rules apart, complete, a missing role reported as an error. */
  rulesFor(user: UserInfo, namespace: string): RuleSet {
    const { rules, missing } = this.rules.resolve(user, namespace);
    const set: RuleSet = {
      resourceRules: [],
      nonResourceRules: [],
      incomplete: false,
      errors: missing.map(messages.roleNotFoundInCache),
    };
    for (const r of rules) {
      if (r.resources?.length) {
        set.resourceRules.push({
          verbs: r.verbs,
          apiGroups: r.apiGroups ?? [],
          resources: r.resources,
          resourceNames: r.resourceNames ?? [],
        });
      }
      if (r.nonResourceURLs?.length) set.nonResourceRules.push({ verbs: r.verbs, nonResourceURLs: r.nonResourceURLs });
    }
    return set;
  }
}

/** A source over fixed objects, for tests and for evaluating a role set that is not stored. */
export function staticRbacSource(objects: KubeObject[]): RbacSource {
  const byKind = (kind: string) => () => objects.filter((o) => o.kind === kind);
  return {
    revision: () => 'static',
    roles: byKind('Role'),
    clusterRoles: byKind('ClusterRole'),
    roleBindings: byKind('RoleBinding'),
    clusterRoleBindings: byKind('ClusterRoleBinding'),
  };
}
