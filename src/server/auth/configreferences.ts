// Naming a ConfigMap as config is reading it: a Node's (or NodeConfig's) spec.configSource has the node download it, and a
// NodeConfigRollout's configSource or layers have the rollout controller read them with its own rights, render the
// layers into kube-system and hand the result to nodes. So whoever writes such a reference must be allowed to read
// what it names. Admission asks the authorizer chain, as the requesting user, for `get` on each ConfigMap the request
// names — the SubjectAccessReview kube makes for "may you refer to this" — and refuses with 403 naming the field and
// the ConfigMap. A request that leaves the references as they were is not asked again, so labelling a node or pausing
// a rollout never depends on ConfigMaps its author may not read.

import { DKC_GROUP, NODE_CONFIGS } from '../../api/dkc/nodeconfig.js';
import { deepEqual } from '../../api/equal.js';
import { errors } from '../../api/errors.js';
import type { KubeObject } from '../../api/types.js';
import { GROUP as ROLLOUT_GROUP } from '../../api/dkc/rollout.js';
import {
  cannotClause,
  type AdmissionAttributes,
  type AdmissionPlugin,
  type AuthorizationAttributes,
  type Authorizer,
} from '../authz.js';
import { configMapRefOf } from '../policy/configs.js';

export const ROLLOUT_PLURAL = 'nodeconfigrollouts';

/** One ConfigMap a request names, and the field that names it (`spec.layers[1]`). */
export interface ConfigMapReference {
  field: string;
  namespace: string;
  name: string;
}

export const messages = {
  /** Follows kube-apiserver's `User "u" cannot get resource "configmaps" …` clause. */
  refused: (ref: ConfigMapReference): string =>
    `${ref.field} names ConfigMap ${ref.namespace}/${ref.name}, and naming a ConfigMap as config requires get on it`,
};

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
/** An object's spec, {} when it has none. */
export const specOf = (o: KubeObject | undefined): Record<string, unknown> =>
  o && isRecord(o['spec']) ? o['spec'] : {};

/** The ConfigMap a NodeConfigSource (or a layer, which has the same `configMap`) names, in either form. */
function sourceReference(source: unknown, field: string): ConfigMapReference[] {
  const ref = configMapRefOf(source);
  return ref ? [{ field, namespace: ref.namespace, name: ref.name }] : [];
}

function rolloutReferences(spec: Record<string, unknown>): ConfigMapReference[] {
  const layers = Array.isArray(spec['layers']) ? spec['layers'] : [];
  return [
    ...sourceReference(spec['configSource'], 'spec.configSource'),
    ...layers.flatMap((l, i) => sourceReference(l, `spec.layers[${i}]`)),
  ];
}

/** A Node, or a NodeConfig, which names its ConfigMap in the same field. */
const isNodes = (a: AdmissionAttributes): boolean =>
  (a.resource.group === '' && a.resource.plural === 'nodes') ||
  (a.resource.group === DKC_GROUP && a.resource.plural === NODE_CONFIGS);
const isRollouts = (a: AdmissionAttributes): boolean =>
  a.resource.group === ROLLOUT_GROUP && a.resource.plural === ROLLOUT_PLURAL;

/**
 * The ConfigMaps a request names anew: every one of a Node's configSource or a rollout's configSource and layers,
 * when it creates them or changes any of them; none otherwise. Pure.
 */
export function namedConfigMaps(a: AdmissionAttributes): ConfigMapReference[] {
  if (a.subresource !== '' || (a.operation !== 'CREATE' && a.operation !== 'UPDATE')) return [];
  const spec = specOf(a.object);
  const old = specOf(a.operation === 'UPDATE' ? a.oldObject : undefined);
  const unchanged = (...fields: string[]) => fields.every((f) => deepEqual(spec[f] ?? null, old[f] ?? null));
  if (isNodes(a)) return unchanged('configSource') ? [] : sourceReference(spec['configSource'], 'spec.configSource');
  if (isRollouts(a)) return unchanged('configSource', 'layers') ? [] : rolloutReferences(spec);
  return [];
}

function getAttributes(a: AdmissionAttributes, ref: ConfigMapReference): AuthorizationAttributes {
  return {
    user: a.user,
    verb: 'get',
    isResourceRequest: true,
    path: `/api/v1/namespaces/${ref.namespace}/configmaps/${ref.name}`,
    apiGroup: '',
    apiVersion: 'v1',
    resource: 'configmaps',
    subresource: '',
    namespace: ref.namespace,
    name: ref.name,
  };
}

export function configMapReferences(authorizer: Authorizer): AdmissionPlugin {
  return {
    name: 'ConfigMapReferences',
    async validate(a) {
      for (const ref of namedConfigMaps(a)) {
        const attrs = getAttributes(a, ref);
        const d = await authorizer.authorize(attrs);
        if (d.decision === 'allow') continue;
        const why = messages.refused(ref);
        throw errors.forbidden(
          { group: a.resource.group, name: a.resource.plural },
          a.name,
          `${cannotClause(attrs)}: ${d.reason ? `${why} (${d.reason})` : why}`,
        );
      }
    },
  };
}
