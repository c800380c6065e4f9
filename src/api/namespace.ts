// The words of a core/v1 Namespace's lifecycle that the API server and the namespace controller share: its phases,
// the finalizer kube-apiserver puts in spec.finalizers, the cause of a create refused while it terminates, and the
// condition types the namespace controller keeps. Pure.

/** The finalizer every namespace gets on create; the namespace controller removes it once the content is gone. */
export const FINALIZER_KUBERNETES = 'kubernetes';
export const NAMESPACE_ACTIVE = 'Active';
export const NAMESPACE_TERMINATING = 'Terminating';
/** The StatusCause type of a create refused in a terminating namespace (core/v1 NamespaceTerminatingCause). */
export const NAMESPACE_TERMINATING_CAUSE = 'NamespaceTerminating';

/** The conditions the namespace controller keeps on a terminating namespace, in the order it writes them. */
export const NAMESPACE_DELETION_CONDITIONS = [
  'NamespaceDeletionDiscoveryFailure',
  'NamespaceDeletionGroupVersionParsingFailure',
  'NamespaceDeletionContentFailure',
  'NamespaceContentRemaining',
  'NamespaceFinalizersRemaining',
] as const;
export type NamespaceDeletionCondition = (typeof NAMESPACE_DELETION_CONDITIONS)[number];

interface NamespaceLike {
  metadata?: { deletionTimestamp?: string | null };
  spec?: { finalizers?: unknown };
  status?: { phase?: unknown };
}

/** spec.finalizers, the strings of it. */
export function namespaceSpecFinalizers(ns: NamespaceLike): string[] {
  const f = ns.spec?.finalizers;
  return Array.isArray(f) ? f.filter((x): x is string => typeof x === 'string') : [];
}

export function namespacePhase(ns: NamespaceLike): string {
  const phase = ns.status?.phase;
  return typeof phase === 'string' ? phase : '';
}
