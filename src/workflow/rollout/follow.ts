// `dkc rollout status --watch`: follows one rollout through an informer narrowed to its name (list, then watch, a
// relist after 410, retries with the client's backoff) until it reaches a final phase, is deleted, or the timeout
// passes. Each observed state is handed to `observe` in order; rendering is the caller's.

import { Informer, type RestClient } from '../../client/index.js';
import type { Clock } from '../../util/clock.js';
import { exitCodeFor } from './render.js';
import { collectionPath, type NodeConfigRollout } from './types.js';

export type FollowEnd = 'final' | 'deleted' | 'timeout';

export interface FollowOptions {
  client: RestClient;
  name: string;
  timeoutMs: number;
  clock: Clock;
  observe: (rollout: NodeConfigRollout) => void;
  /** A failed list or watch; the informer retries it, so this only informs. */
  onError?: (err: unknown) => void;
}

export async function follow(opts: FollowOptions): Promise<FollowEnd> {
  const informer = new Informer<NodeConfigRollout>(opts.client, collectionPath(), {
    fieldSelector: `metadata.name=${opts.name}`,
    clock: opts.clock,
  });
  let timer: unknown;
  const end = new Promise<FollowEnd>((resolve) => {
    const seen = (obj: NodeConfigRollout): void => {
      opts.observe(obj);
      if (exitCodeFor(obj) !== undefined) resolve('final');
    };
    informer.on('add', seen);
    informer.on('update', (_old, obj) => seen(obj));
    informer.on('delete', () => resolve('deleted'));
    informer.on('error', (err) => opts.onError?.(err));
    timer = opts.clock.setTimeout(() => resolve('timeout'), opts.timeoutMs);
    // Deleted between the caller's GET and the informer's first list: nothing would ever arrive.
    void informer.whenSynced().then((synced) => {
      if (synced && informer.store.size === 0) resolve('deleted');
    });
  });
  informer.start();
  try {
    return await end;
  } finally {
    opts.clock.clearTimeout(timer);
    await informer.stop();
  }
}
