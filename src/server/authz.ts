// The request path's authorization and admission hooks. This module defines the contracts and the default
// implementations (every authenticated identity is allowed, no admission plugins); the Node authorizer, RBAC and
// NodeRestriction plug in here without changes to the handlers.

import { errors, type StatusError } from '../api/errors.js';
import { parseFieldSelector, type FieldRequirement } from '../api/selectors.js';
import type { KubeObject } from '../api/types.js';
import type { ResourceDef } from './resourcedef.js';

export interface UserInfo {
  name: string;
  uid?: string;
  groups: string[];
  /** Extra attributes (an impersonating request's `Impersonate-Extra-*`). */
  extra?: Record<string, string[]>;
}

export interface AuthorizationAttributes {
  user: UserInfo;
  verb: string;
  isResourceRequest: boolean;
  path: string;
  apiGroup: string;
  apiVersion: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
  /** A list's or watch's field selector, parsed; authorizers may read `metadata.name=<x>` as the name. */
  fieldSelector?: FieldRequirement[];
}

/** The requirements of a field selector's text; none when it does not parse (the request itself then fails). */
export function fieldSelectorAttributes(raw: string | null | undefined): FieldRequirement[] | undefined {
  if (!raw) return undefined;
  try {
    return parseFieldSelector(raw);
  } catch {
    return undefined;
  }
}

/** The value a field selector pins `field` to (`field=value`), if it does. */
export function selectedValue(a: AuthorizationAttributes, field: string): string | undefined {
  return a.fieldSelector?.find((r) => r.field === field && r.operator === '=')?.value;
}

export type Decision = { decision: 'allow' | 'deny' | 'no-opinion'; reason: string };

export interface ResourceRuleInfo {
  verbs: string[];
  apiGroups: string[];
  resources: string[];
  resourceNames: string[];
}

export interface NonResourceRuleInfo {
  verbs: string[];
  nonResourceURLs: string[];
}

/** What an authorizer can say a user may do in a namespace (upstream's RuleResolver answer). */
export interface RuleSet {
  resourceRules: ResourceRuleInfo[];
  nonResourceRules: NonResourceRuleInfo[];
  /** True when the authorizer allows more than it can list. */
  incomplete: boolean;
  errors: string[];
}

export interface Authorizer {
  authorize(attrs: AuthorizationAttributes): Decision | Promise<Decision>;
  /** The rules this authorizer grants the user in `namespace`; absent when it cannot say (it then adds nothing). */
  rulesFor?(user: UserInfo, namespace: string): RuleSet | Promise<RuleSet>;
}

export const alwaysAllow: Authorizer = {
  authorize: () => ({ decision: 'allow', reason: '' }),
  rulesFor: () => ({
    resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], resourceNames: [] }],
    nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
    incomplete: false,
    errors: [],
  }),
};

/**
 * Asks each authorizer in turn; the first allow or deny wins; no opinion from all of them denies. Rules are the
 * union of what every authorizer that can list them lists, incomplete if any of them is.
 */
export function authorizerChain(...chain: Authorizer[]): Authorizer {
  return {
    async authorize(attrs) {
      const reasons: string[] = [];
      for (const a of chain) {
        const d = await a.authorize(attrs);
        if (d.decision !== 'no-opinion') return d;
        if (d.reason) reasons.push(d.reason);
      }
      return { decision: 'deny', reason: reasons.join(', ') };
    },
    async rulesFor(user, namespace) {
      const union: RuleSet = { resourceRules: [], nonResourceRules: [], incomplete: false, errors: [] };
      for (const a of chain) {
        if (!a.rulesFor) continue;
        const r = await a.rulesFor(user, namespace);
        union.resourceRules.push(...r.resourceRules);
        union.nonResourceRules.push(...r.nonResourceRules);
        union.incomplete ||= r.incomplete;
        union.errors.push(...r.errors);
      }
      return union;
    },
  };
}

/** kube-apiserver's words for a denied resource request: `User "u" cannot get resource "configmaps" in API group "" in the namespace "ns"`. */
export function cannotClause(attrs: AuthorizationAttributes): string {
  const resource = attrs.subresource ? `${attrs.resource}/${attrs.subresource}` : attrs.resource;
  const scope = attrs.namespace ? `in the namespace ${JSON.stringify(attrs.namespace)}` : 'at the cluster scope';
  return `User ${JSON.stringify(attrs.user.name)} cannot ${attrs.verb} resource ${JSON.stringify(resource)} in API group ${JSON.stringify(attrs.apiGroup)} ${scope}`;
}

/** kube-apiserver's Forbidden wording for a denied request. */
export function forbiddenError(attrs: AuthorizationAttributes, reason: string): StatusError {
  const suffix = reason ? `: ${reason}` : '';
  if (!attrs.isResourceRequest) {
    return errors.forbiddenMessage(
      `forbidden: User ${JSON.stringify(attrs.user.name)} cannot ${attrs.verb} path ${JSON.stringify(attrs.path)}${suffix}`,
    );
  }
  return errors.forbidden(
    { group: attrs.apiGroup, name: attrs.resource },
    attrs.name,
    `${cannotClause(attrs)}${suffix}`,
  );
}

export interface AdmissionAttributes {
  user: UserInfo;
  operation: 'CREATE' | 'UPDATE' | 'DELETE';
  resource: ResourceDef;
  subresource: string;
  namespace: string;
  name: string;
  /** The object as it will be stored (mutating plugins may change it). */
  object?: KubeObject;
  /**
   * The object as the client asked for it, when the release's strategy reset fields of it (kube's mutating admission
   * runs before PrepareForCreate/Update, so NodeRestriction judges what a node asked for, not what would be kept).
   */
  requested?: KubeObject;
  oldObject?: KubeObject;
  dryRun: boolean;
  /** Warnings for the response's `Warning` headers; a plugin adds to it instead of refusing. */
  warnings?: string[];
}

/**
 * What admission plugins may read beyond the request: objects straight from the store (not the watch cache, which
 * may trail a write the same client made a moment ago) and a node agent's HTTPS endpoint through the node proxy.
 */
export interface ServerReads {
  get(group: string, plural: string, namespace: string, name: string): Promise<KubeObject | undefined>;
  list(group: string, plural: string): Promise<KubeObject[]>;
  /** The body of a GET on the node's agent, as the node proxy reaches it; rejects on any failure or after `timeoutMs`. */
  nodeGet(node: KubeObject, path: string, timeoutMs: number): Promise<string>;
}

export interface AdmissionPlugin {
  name: string;
  /** Mutating phase: may change `attrs.object`. */
  admit?(attrs: AdmissionAttributes): void | Promise<void>;
  /** Validating phase: throws a StatusError to refuse. */
  validate?(attrs: AdmissionAttributes): void | Promise<void>;
}

export async function runAdmission(plugins: AdmissionPlugin[], attrs: AdmissionAttributes): Promise<void> {
  for (const p of plugins) if (p.admit) await p.admit(attrs);
  for (const p of plugins) if (p.validate) await p.validate(attrs);
}
