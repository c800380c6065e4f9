// The separate permission to assign config: changing Node.spec.configSource — by update, patch, apply or edit, which
// all arrive here as a Node update, or by creating a Node that already names one — also needs `update` on the
// subresource `nodes/configsource`, asked of the server's authorizer chain as the requesting user. Labelling or
// tainting a Node stays a plain nodes patch. A node clearing its own source is left to NodeRestriction, which allows
// it (older kubelets drop the field when they write their whole Node).

import { deepEqual } from '../../api/equal.js';
import type { AdmissionAttributes, AdmissionPlugin, AuthorizationAttributes, Authorizer } from '../authz.js';
import { forbiddenError } from '../authz.js';
import { nodeIdentity } from './nodeauthorizer.js';

export const CONFIGSOURCE_SUBRESOURCE = 'configsource';
const WHY = 'changing spec.configSource requires update on nodes/configsource';

function configSourceOf(obj: unknown): unknown {
  const spec = (obj as { spec?: { configSource?: unknown } } | undefined)?.spec;
  return spec?.configSource ?? null;
}

/** The request's change of configSource, if it makes one. */
function changesConfigSource(a: AdmissionAttributes): { next: unknown } | undefined {
  if (a.resource.group !== '' || a.resource.plural !== 'nodes' || a.subresource !== '') return undefined;
  if (a.operation !== 'CREATE' && a.operation !== 'UPDATE') return undefined;
  const next = configSourceOf(a.object);
  const before = a.operation === 'UPDATE' ? configSourceOf(a.oldObject) : null;
  return deepEqual(next, before) ? undefined : { next };
}

export function configSourcePermission(authorizer: Authorizer): AdmissionPlugin {
  return {
    name: 'NodeConfigSource',
    async validate(a) {
      const change = changesConfigSource(a);
      if (!change) return;
      if (change.next === null && nodeIdentity(a.user).isNode) return;
      const attrs: AuthorizationAttributes = {
        user: a.user,
        verb: 'update',
        isResourceRequest: true,
        path: `/api/v1/nodes/${a.name}/${CONFIGSOURCE_SUBRESOURCE}`,
        apiGroup: '',
        apiVersion: 'v1',
        resource: 'nodes',
        subresource: CONFIGSOURCE_SUBRESOURCE,
        namespace: '',
        name: a.name,
      };
      const d = await authorizer.authorize(attrs);
      if (d.decision !== 'allow') throw forbiddenError(attrs, d.reason ? `${WHY} (${d.reason})` : WHY);
    },
  };
}
