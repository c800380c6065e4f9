// How a workload controller's informer handlers find the controllers an object concerns (kube's
// resolveControllerRef and getPodReplicaSets / getDeploymentsForReplicaSet): the one its controllerRef names, if that
// is of the kind and UID named, or, for an orphan, every controller of its namespace whose selector matches it.

import { objectSelectorRequirements, matchesLabels } from '../../api/selectors.js';
import type { LabelSelector } from '../../api/apps.js';
import type { OwnerReference } from '../../api/types.js';
import type { InformerStore } from '../../client/informer.js';

interface Controller {
  metadata: { uid?: string; namespace?: string };
  spec: { selector: LabelSelector };
}

/** The controller `ref` names in `namespace`, if the store holds one of that kind (group apps) and UID. */
export function resolveControllerRef<T extends Controller>(
  store: InformerStore<T>,
  namespace: string,
  ref: OwnerReference | undefined,
  kind: string,
): T | undefined {
  if (!ref || ref.kind !== kind || !ref.apiVersion.startsWith('apps/')) return undefined;
  const found = store.get(`${namespace}/${ref.name}`);
  return found?.metadata.uid === ref.uid ? found : undefined;
}

/** The controllers of `namespace` whose selector reads and matches `labels`; an empty selector matches nothing. */
export function selectingControllers<T extends Controller>(
  store: InformerStore<T>,
  namespace: string,
  labels: Readonly<Record<string, string>> | undefined,
): T[] {
  return store.list().filter((c) => {
    if ((c.metadata.namespace ?? '') !== namespace) return false;
    try {
      const selector = objectSelectorRequirements(c.spec.selector);
      return selector.length > 0 && matchesLabels(selector, labels);
    } catch {
      return false;
    }
  });
}
