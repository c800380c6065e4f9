// kube's ControllerExpectations, small (k8s:pkg/controller/controller_utils.go ControllerExpectations and
// UIDTrackingControllerExpectations): what a controller's last sync asked for and its informer has not shown yet — so
// many creates, these Pods' deletions — per controller key. A key with expectations outstanding is not synced into
// new creates or deletes (it would count its own Pods twice); they are met as the informer shows the creates and
// deletions, lowered for a create or delete that failed, and given up after five minutes, when a watch event must
// have been missed.

import type { Clock } from '../../util/clock.js';

/** controller.ExpectationsTimeout. */
export const EXPECTATIONS_TIMEOUT_MS = 5 * 60 * 1000;

interface Expected {
  adds: number;
  /** Keys of the Pods whose deletion is awaited. */
  deletes: Set<string>;
  setAtMs: number;
}

export class Expectations {
  private readonly byKey = new Map<string, Expected>();

  constructor(private readonly clock: Clock) {}

  /** SatisfiedExpectations: nothing outstanding, none recorded, or recorded too long ago. */
  satisfied(key: string): boolean {
    const e = this.byKey.get(key);
    if (!e) return true;
    if (e.adds <= 0 && e.deletes.size === 0) return true;
    return this.clock.monotonicMs() - e.setAtMs > EXPECTATIONS_TIMEOUT_MS;
  }

  /** ExpectCreations / ExpectDeletions: replaces what was expected of `key`. */
  expect(key: string, adds: number, deletes: readonly string[] = []): void {
    this.byKey.set(key, { adds, deletes: new Set(deletes), setAtMs: this.clock.monotonicMs() });
  }

  /** CreationObserved, also for a create that failed or was never sent. */
  creationObserved(key: string, count = 1): void {
    const e = this.byKey.get(key);
    if (e) e.adds -= count;
  }

  /** DeletionObserved: the Pod `podKey` is gone (or its delete failed); counted once however often it is told. */
  deletionObserved(key: string, podKey: string): void {
    this.byKey.get(key)?.deletes.delete(podKey);
  }

  /** DeleteExpectations: the controller is gone. */
  forget(key: string): void {
    this.byKey.delete(key);
  }
}
