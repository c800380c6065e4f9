// What dkc server says about a NodeConfigRollout that names a ConfigMap outside dkc's config namespace.

export const messages = {
  /** A Warning header: the rollout is accepted, but on a real cluster its nodes could not read the ConfigMap. */
  outsideConfigNamespace: (field: string, namespace: string, name: string, configNamespace: string): string =>
    `${field} names ConfigMap ${namespace}/${name}, outside ${configNamespace}: on a real cluster nodes may read ` +
    `ConfigMaps in ${configNamespace} only (deploy/node-daemon/rbac.yaml), so no node could download it; ` +
    `create it in ${configNamespace}`,
};
