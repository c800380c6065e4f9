// RBAC's escalation check, as kube-apiserver's RBAC storage makes it (pkg/registry/rbac/*/policybased): a user may
// write a Role or ClusterRole only with rules she already holds where it applies, or with the `escalate` verb on
// that kind; she may write a binding only to a role whose rules she holds in the binding's namespace, or with the
// `bind` verb on that role. Members of system:masters are exempt (the server's own writes are made as one). Without
// this, anyone allowed to create a RoleBinding could bind cluster-admin to herself.
//
// Her rules come from the same RBAC index the authorizer uses; the role a binding names is read from the store, so a
// role created a moment ago is found. The check runs on create and update, dry run included.

import { deepEqual } from '../../api/equal.js';
import { errors, type StatusError } from '../../api/errors.js';
import type { KubeObject } from '../../api/types.js';
import { aggregate } from '../../kubeletconfig/errors.js';
import type {
  AdmissionAttributes,
  AdmissionPlugin,
  AuthorizationAttributes,
  Authorizer,
  ServerReads,
  UserInfo,
} from '../authz.js';
import { messages } from './messages.js';
import { rulesOf, type PolicyRule, type RbacRules, type RoleRef } from './rbac.js';
import { RBAC_GROUP } from './rbacresources.js';
import { describeMissing, uncovered } from './rulecover.js';

export interface EscalationDeps {
  /** The server's whole authorizer chain: asked whether the user may `bind` or `escalate`. */
  authorizer: Authorizer;
  /** The rules the user holds through RBAC. */
  rules: RbacRules;
  reads: () => ServerReads | undefined;
  /** Users exempt from the check (system:masters). */
  exempt(user: UserInfo): boolean;
}

const ROLE_KINDS = new Set(['roles', 'clusterroles']);
const BINDING_KINDS = new Set(['rolebindings', 'clusterrolebindings']);

/** Everything, resources and URLs: what it takes to set an aggregationRule, which may gather any rule. */
const FULL_AUTHORITY: PolicyRule[] = [
  { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
  { verbs: ['*'], nonResourceURLs: ['*'] },
];

function hasAggregationRule(obj: KubeObject | undefined): boolean {
  const rule = obj?.['aggregationRule'] as { clusterRoleSelectors?: unknown } | undefined | null;
  return Array.isArray(rule?.clusterRoleSelectors) && rule.clusterRoleSelectors.length > 0;
}

/** An update that changes only what garbage collection uses (owners, finalizers, deletion) grants nothing new. */
function onlyGarbageCollectionFields(next: KubeObject, old: KubeObject): boolean {
  const strip = (o: KubeObject) => {
    const {
      ownerReferences: _o,
      finalizers: _f,
      selfLink: _s,
      deletionTimestamp: _d,
      deletionGracePeriodSeconds: _g,
      managedFields: _m,
      resourceVersion: _r,
      ...meta
    } = o.metadata as Record<string, unknown>;
    return { ...o, metadata: meta };
  };
  return deepEqual(strip(next), strip(old));
}

function groupResource(attrs: AdmissionAttributes) {
  return { group: RBAC_GROUP, name: attrs.resource.plural };
}

export function rbacEscalation(deps: EscalationDeps): AdmissionPlugin {
  const allowed = async (attrs: AuthorizationAttributes): Promise<boolean> =>
    (await deps.authorizer.authorize(attrs)).decision === 'allow';
  const request = (
    user: UserInfo,
    verb: string,
    resource: string,
    namespace: string,
    name: string,
    apiGroup = RBAC_GROUP,
  ): AuthorizationAttributes => ({
    user,
    verb,
    isResourceRequest: true,
    path: '',
    apiGroup,
    apiVersion: '*',
    resource,
    subresource: '',
    namespace,
    name,
  });

  /** ConfirmNoEscalation: the refusal's text when the user's rules in `namespace` do not cover `wanted`. */
  const notHeld = (user: UserInfo, namespace: string, wanted: PolicyRule[]): string | undefined => {
    const { rules, missing } = deps.rules.resolve(user, namespace);
    const gaps = uncovered(rules, wanted);
    if (gaps.length === 0) return undefined;
    let text = messages.notCurrentlyHeld(user.name, user.groups, describeMissing(gaps));
    if (missing.length) text += messages.resolutionErrors(aggregate(missing.map(messages.roleNotFoundInStore)));
    return text;
  };

  /** The rules of the role a binding names, read from the store: a missing role is a 404, as upstream's. */
  const referencedRules = async (ref: RoleRef, bindingNamespace: string): Promise<PolicyRule[]> => {
    if (ref.kind !== 'Role' && ref.kind !== 'ClusterRole')
      throw errors.badRequest(messages.unsupportedRoleRefKind(ref.kind));
    const plural = ref.kind === 'Role' ? 'roles' : 'clusterroles';
    const ns = ref.kind === 'Role' ? bindingNamespace : '';
    const role = await deps.reads()?.get(RBAC_GROUP, plural, ns, ref.name);
    if (!role) throw errors.notFound({ group: RBAC_GROUP, name: plural }, ref.name);
    return rulesOf(role);
  };

  const forbidden = (attrs: AdmissionAttributes, why: string): StatusError =>
    errors.forbidden(groupResource(attrs), attrs.name, why);

  async function checkRole(attrs: AdmissionAttributes, obj: KubeObject): Promise<void> {
    const name = attrs.operation === 'CREATE' ? '' : attrs.name;
    if (await allowed(request(attrs.user, 'escalate', attrs.resource.plural, attrs.namespace, name))) return;
    const why = notHeld(attrs.user, attrs.namespace, rulesOf(obj));
    if (why) throw forbidden(attrs, why);
    // An aggregationRule may gather any rule there is, and keeps a role from being tightened: cluster-admin's alone.
    if (hasAggregationRule(obj) || hasAggregationRule(attrs.oldObject)) {
      if (notHeld(attrs.user, attrs.namespace, FULL_AUTHORITY))
        throw forbidden(attrs, messages.aggregationRuleNeedsClusterAdmin);
    }
  }

  async function checkBinding(attrs: AdmissionAttributes, obj: KubeObject): Promise<void> {
    const ref = (obj['roleRef'] ?? {}) as RoleRef;
    const resource = ref.kind === 'ClusterRole' ? 'clusterroles' : ref.kind === 'Role' ? 'roles' : '';
    if (
      resource &&
      (await allowed(request(attrs.user, 'bind', resource, attrs.namespace, ref.name, ref.apiGroup ?? '')))
    )
      return;
    const why = notHeld(attrs.user, attrs.namespace, await referencedRules(ref, attrs.namespace));
    if (why) throw forbidden(attrs, why);
  }

  return {
    name: 'RBACEscalation',
    async validate(attrs) {
      if (attrs.resource.group !== RBAC_GROUP || attrs.subresource || !attrs.object) return;
      if (attrs.operation !== 'CREATE' && attrs.operation !== 'UPDATE') return;
      const plural = attrs.resource.plural;
      if (!ROLE_KINDS.has(plural) && !BINDING_KINDS.has(plural)) return;
      if (deps.exempt(attrs.user)) return;
      if (attrs.operation === 'UPDATE' && attrs.oldObject && onlyGarbageCollectionFields(attrs.object, attrs.oldObject))
        return;
      if (ROLE_KINDS.has(plural)) await checkRole(attrs, attrs.object);
      else await checkBinding(attrs, attrs.object);
    },
  };
}
