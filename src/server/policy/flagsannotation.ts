// The config-flags annotation (src/nodepolicy/flags.ts) says which fields the node's flags hold, and policy
// admission takes those fields out of every comparison: whoever could write it could hide a change from a policy
// or make one up. NodeRestriction already confines a node to its own Node; this rule confines the annotation to
// that node: any other writer — a user with `patch nodes`, an administrator, a controller — may carry it unchanged,
// and is refused with 403 when a create sets it or an update changes or removes it.

import { errors } from '../../api/errors.js';
import type { KubeObject } from '../../api/types.js';
import { CONFIG_FLAGS_ANNOTATION } from '../../nodepolicy/flags.js';
import { nodeIdentity } from '../auth/nodeauthorizer.js';
import type { AdmissionAttributes } from '../authz.js';
import { messages } from './messages.js';

const annotationOf = (o: KubeObject | undefined): string | undefined =>
  o?.metadata.annotations?.[CONFIG_FLAGS_ANNOTATION];

/** Throws Forbidden when someone other than the node itself sets, changes or removes its config-flags annotation. */
export function checkFlagsAnnotation(a: AdmissionAttributes): void {
  if (a.resource.group !== '' || a.resource.plural !== 'nodes' || a.operation === 'DELETE') return;
  if (annotationOf(a.object) === annotationOf(a.oldObject)) return;
  const { isNode, nodeName } = nodeIdentity(a.user);
  if (isNode && nodeName === a.name) return;
  throw errors.forbidden(
    { group: '', name: 'nodes' },
    a.name,
    messages.flagsAnnotation(a.name, CONFIG_FLAGS_ANNOTATION),
  );
}
