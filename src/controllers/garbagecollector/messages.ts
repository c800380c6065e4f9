// The garbage collector's log lines, in kube-controller-manager's words where it has them.

export const logs = {
  synced: (resources: number, objects: number) =>
    `Garbage collector: all resource monitors have synced (${resources} resources, ${objects} objects); proceeding to collect garbage`,
  discoveryFailed: (why: string) =>
    `Garbage collector: failed to discover the resources to monitor, will retry: ${why}`,
  deleting: (item: string, policy: string) => `Deleting item ${item} with propagationPolicy ${policy}`,
  itemFailed: (item: string, why: string) => `Error syncing item ${item}, will retry: ${why}`,
  unknownKind: (apiVersion: string, kind: string) =>
    `unable to find the resource of owner kind ${kind} in ${apiVersion}`,
};
