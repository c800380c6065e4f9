// What dkc server says about NodeConfig writes it refuses.

export const messages = {
  /** Only the rollout controller writes the revert record. */
  recordIsTheControllers: (controller: string): string =>
    `status.previous is the rollout controller's revert record: only ${JSON.stringify(controller)} may write it`,
};

/** What dkc server warns of an edit of a ConfigMap that nodes run directly. */
export const inPlaceEditMessages = {
  /** The response's Warning: how many kubelets restart onto the edit at once, and the safe way instead. */
  restartAtOnce: (nodes: number, namespace: string, name: string): string =>
    `${nodes} ${nodes === 1 ? 'node runs' : 'nodes run'} ConfigMap ${namespace}/${name} directly and will restart ` +
    `${nodes === 1 ? 'its kubelet' : 'their kubelets'} onto this edit at once, with no canary, batches or ` +
    'maxUnavailable; to change their config safely, create a new ConfigMap ' +
    '(kubectl create configmap --append-hash) and roll it out with a NodeConfigRollout',
};
