// The backoff of a node whose daemon Pod failed (k8s:pkg/controller/daemon/daemon_controller.go failedPodsBackoff,
// client-go's flowcontrol.Backoff with 1 s doubling to 15 min): after a failed Pod is deleted, the node gets no new
// one until its delay has passed since then, so a Pod that fails at once does not spin. An entry untouched for twice
// the cap is forgotten and starts again at 1 s. Time is passed in.

export const FAILED_POD_BACKOFF = { initialMs: 1_000, maxMs: 15 * 60 * 1_000 };

interface Entry {
  delayMs: number;
  lastUpdateMs: number;
}

export class FailedPodBackoff {
  private readonly entries = new Map<string, Entry>();

  private live(id: string, nowMs: number): Entry | undefined {
    const e = this.entries.get(id);
    if (e && nowMs - e.lastUpdateMs > 2 * FAILED_POD_BACKOFF.maxMs) {
      this.entries.delete(id);
      return undefined;
    }
    return e;
  }

  /** Next: the failed Pod on `id` is being deleted now; its delay starts at 1 s or doubles. */
  next(id: string, nowMs: number): void {
    const e = this.live(id, nowMs);
    const delayMs = e ? Math.min(e.delayMs * 2, FAILED_POD_BACKOFF.maxMs) : FAILED_POD_BACKOFF.initialMs;
    this.entries.set(id, { delayMs, lastUpdateMs: nowMs });
  }

  /** IsInBackOffSinceUpdate. */
  inBackoff(id: string, nowMs: number): boolean {
    const e = this.live(id, nowMs);
    return e !== undefined && nowMs - e.lastUpdateMs < e.delayMs;
  }

  /** Get: the current delay of `id`, 0 when it has none. */
  delayMs(id: string): number {
    return this.entries.get(id)?.delayMs ?? 0;
  }
}

/** failedPodsBackoffKey: a DaemonSet's node. */
export const failedPodBackoffKey = (dsUid: string, node: string): string => `${dsUid}/${node}`;
