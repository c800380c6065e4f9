// What dkc server says about NodeConfig writes it refuses.

export const messages = {
  /** Only the rollout controller writes the revert record. */
  recordIsTheControllers: (controller: string): string =>
    `status.previous is the rollout controller's revert record: only ${JSON.stringify(controller)} may write it`,
};
