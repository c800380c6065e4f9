// A workload controller's Pod writes (kube's RealPodControl under the controllers' manage loops): creates in
// slow-start batches, stopping after a batch with a failure, and deletes all at once, each with kube's event on the
// controller and the expectations kept — raised before the writes, lowered for each write that failed or was never
// sent. Returns the first failure's message, which the controller reports and retries on.

import type { ObjectReference } from '../../api/types.js';
import type { PodView } from '../../api/pods.js';
import { isApiError, type RestClient } from '../../client/index.js';
import type { EventType } from '../../client/events.js';
import { objectKey } from '../../client/informer.js';
import { errorMessage } from '../../util/errors.js';
import { podPath, type PodObject } from '../podinformers.js';
import type { Expectations } from './expectations.js';
import { podEvents as events } from './messages.js';
import type { PodToCreate } from './podtemplate.js';

export const podObjectKey = (p: PodView): string => objectKey(p as PodObject);

export interface PodControlTarget {
  /** The controller's key in its work queue and expectations. */
  key: string;
  /** The controller, as its events name it. */
  ref: ObjectReference;
}

export class PodControl {
  constructor(
    private readonly client: Pick<RestClient, 'create' | 'delete'>,
    private readonly expectations: Expectations,
    /** Records an event on the controller. */
    private readonly record: (on: ObjectReference, type: EventType, reason: string, message: string) => void,
  ) {}

  /**
   * Creates `pods` in order, `batches` at a time (the batches' sizes add up to the Pods' count). `expect` false: the
   * caller has raised the expectations already, for creates and deletes at once.
   */
  async create(
    t: PodControlTarget,
    pods: readonly PodToCreate[],
    batches: readonly number[],
    expect = true,
  ): Promise<string | undefined> {
    if (expect) this.expectations.expect(t.key, pods.length);
    let sent = 0;
    for (const size of batches) {
      const batch = pods.slice(sent, sent + size);
      const results = await Promise.allSettled(
        batch.map((p) => this.client.create<PodObject>(`/api/v1/namespaces/${p.metadata.namespace ?? ''}/pods`, p)),
      );
      sent += batch.length;
      let failure: string | undefined;
      for (const r of results) {
        if (r.status === 'fulfilled') {
          this.event(t, 'Normal', events.successfulCreate, events.created(r.value.metadata.name ?? ''));
          continue;
        }
        failure ??= errorMessage(r.reason);
        this.expectations.creationObserved(t.key);
        this.event(t, 'Warning', events.failedCreate, events.createError(errorMessage(r.reason)));
      }
      if (failure !== undefined) {
        this.expectations.creationObserved(t.key, pods.length - sent);
        return failure;
      }
    }
    return undefined;
  }

  /** Deletes `pods`; one already gone counts as deleted. */
  async delete(t: PodControlTarget, pods: readonly PodView[], expect = true): Promise<string | undefined> {
    if (expect) this.expectations.expect(t.key, 0, pods.map(podObjectKey));
    let failure: string | undefined;
    await Promise.all(
      pods.map(async (p) => {
        try {
          await this.client.delete(podPath(p as PodObject));
          this.event(t, 'Normal', events.successfulDelete, events.deleted(p.metadata.name ?? ''));
        } catch (err) {
          this.expectations.deletionObserved(t.key, podObjectKey(p));
          if (isApiError(err, 404)) return;
          failure ??= errorMessage(err);
          this.event(t, 'Warning', events.failedDelete, events.deleteError(errorMessage(err)));
        }
      }),
    );
    return failure;
  }

  private event(t: PodControlTarget, type: EventType, reason: string, message: string): void {
    this.record(t.ref, type, reason, message);
  }
}
