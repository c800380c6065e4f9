// kube's "slow start" for a controller's creates (k8s:pkg/controller/replicaset/replica_set.go slowStartBatch):
// batches of 1, 2, 4, … so that a create that keeps failing (quota, admission) costs one call, not hundreds. The
// host runs a batch's creates together and stops at the first batch in which any fails; what it did not try is
// left for the next sync.

/** controller.SlowStartInitialBatchSize. */
export const SLOW_START_INITIAL_BATCH = 1;

/** The sizes of the batches for `count` creates, doubling from `initial`, the last one what remains. */
export function slowStartBatches(count: number, initial = SLOW_START_INITIAL_BATCH): number[] {
  const batches: number[] = [];
  let remaining = Math.max(0, count);
  let size = Math.min(remaining, initial);
  while (size > 0) {
    batches.push(size);
    remaining -= size;
    size = Math.min(2 * size, remaining);
  }
  return batches;
}
