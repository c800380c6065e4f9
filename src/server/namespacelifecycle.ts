// A Namespace's lifecycle as kube-apiserver's namespace registry and its NamespaceLifecycle admission plugin keep it
// (https://kubernetes.io/docs/tasks/administer-cluster/namespaces/#deleting-a-namespace: "this delete is
// asynchronous, so for a time you will see the namespace in the Terminating state"; the NamespaceLifecycle plugin in
// https://kubernetes.io/docs/reference/access-authn-authz/admission-controllers/): a
// namespace is created Active with the `kubernetes` finalizer in spec.finalizers; its first DELETE only marks it
// (deletionTimestamp, phase Terminating) and it stays while spec.finalizers names anything; spec.finalizers changes
// only through the /finalize subresource; once spec.finalizers and metadata.finalizers are both empty, the namespace
// goes; and nothing new may be created in a namespace that is Terminating. Pure: the storage does the writes.

import { errors, type GroupName, type StatusError } from '../api/errors.js';
import type { KubeObject } from '../api/types.js';
import {
  FINALIZER_KUBERNETES,
  NAMESPACE_ACTIVE,
  NAMESPACE_TERMINATING,
  NAMESPACE_TERMINATING_CAUSE,
  namespacePhase,
  namespaceSpecFinalizers as specFinalizers,
} from '../api/namespace.js';
import { isBeingDeleted } from './finalizers.js';
import type { DeleteDecision } from './resourcedef.js';

/** The subresource through which, alone, spec.finalizers changes. */
export const FINALIZE_SUBRESOURCE = 'finalize';

type Fields = Record<string, unknown>;

const record = (v: unknown): Fields | undefined =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Fields) : undefined;

/** PrepareForCreate: the status is Active whatever was sent, and spec.finalizers holds `kubernetes` (added last). */
export function prepareNamespaceCreate(ns: KubeObject): void {
  const spec = { ...(record(ns['spec']) ?? {}) };
  const finalizers = specFinalizers(ns);
  if (!finalizers.includes(FINALIZER_KUBERNETES)) finalizers.push(FINALIZER_KUBERNETES);
  spec['finalizers'] = finalizers;
  ns['spec'] = spec;
  ns['status'] = { phase: NAMESPACE_ACTIVE };
}

/**
 * PrepareForUpdate of each of the three strategies: the main resource changes neither spec.finalizers nor status,
 * /status changes no spec, /finalize changes no status. (The generic storage already keeps status from main writes
 * and takes only status from /status writes.)
 */
export function prepareNamespaceUpdate(ns: KubeObject, old: KubeObject, subresource: string): void {
  if (subresource === 'status') {
    if (old['spec'] === undefined) delete ns['spec'];
    else ns['spec'] = structuredClone(old['spec']);
    return;
  }
  if (old['status'] === undefined) delete ns['status'];
  else ns['status'] = structuredClone(old['status']);
  if (subresource === FINALIZE_SUBRESOURCE) return;
  const spec = { ...(record(ns['spec']) ?? {}) };
  const oldFinalizers = record(old['spec'])?.['finalizers'];
  if (oldFinalizers === undefined) delete spec['finalizers'];
  else spec['finalizers'] = structuredClone(oldFinalizers);
  ns['spec'] = spec;
}

/**
 * What a DELETE does to a namespace (kube's namespace REST Delete): the first marks it Terminating and keeps it; a
 * later one changes nothing while spec.finalizers names anything, and is the generic delete once it names nothing.
 */
export function namespaceDeletion(ns: KubeObject, now: string): DeleteDecision {
  if (!isBeingDeleted(ns)) {
    const status = { ...(record(ns['status']) ?? {}), phase: NAMESPACE_TERMINATING };
    return { store: { ...ns, metadata: { ...ns.metadata, deletionTimestamp: now }, status } };
  }
  if (specFinalizers(ns).length > 0) return { keep: true };
  return undefined;
}

/** Whether an update may remove a namespace being deleted: only once spec.finalizers is empty (the generic rule adds the rest). */
export function namespaceMayGo(next: KubeObject): boolean {
  return specFinalizers(next).length === 0;
}

/**
 * The NamespaceLifecycle admission plugin's refusal of a create in a namespace that is Terminating: 403 naming the
 * object ("Unknown" when it has no name yet, as with generateName), with the NamespaceTerminating cause.
 */
export function refuseCreateInTerminating(
  resource: GroupName,
  name: string,
  namespace: string,
  ns: KubeObject,
): StatusError | undefined {
  if (namespacePhase(ns) !== NAMESPACE_TERMINATING) return undefined;
  const err = errors.forbidden(
    resource,
    name || 'Unknown',
    `unable to create new content in namespace ${namespace} because it is being terminated`,
  );
  err.status.details = {
    ...err.status.details,
    causes: [
      {
        reason: NAMESPACE_TERMINATING_CAUSE,
        message: `namespace ${namespace} is being terminated`,
        field: 'metadata.namespace',
      },
    ],
  };
  return err;
}
