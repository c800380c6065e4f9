// CustomResourceDefinitions tests and benchmarks install, built by one function (crdOf) so each states only its
// group, kind and schema: a namespaced kind with no schema of its own (any fields kept), for tests that need a custom
// kind to exist rather than to validate.

/** A CustomResourceDefinition with one served and stored version, `v1`. */
export function crdOf(o: {
  group: string;
  kind: string;
  plural: string;
  scope?: 'Namespaced' | 'Cluster';
  schema: Record<string, unknown>;
  /** Serve the status subresource. */
  status?: boolean;
}): Record<string, unknown> {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${o.plural}.${o.group}` },
    spec: {
      group: o.group,
      scope: o.scope ?? 'Namespaced',
      names: { plural: o.plural, singular: o.kind.toLowerCase(), kind: o.kind, listKind: `${o.kind}List` },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          ...(o.status ? { subresources: { status: {} } } : {}),
          schema: { openAPIV3Schema: o.schema },
        },
      ],
    },
  };
}

/** widgets.example.com/v1 Widget, namespaced, every field preserved. */
export const widgetCrd = crdOf({
  group: 'example.com',
  kind: 'Widget',
  plural: 'widgets',
  schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
});
