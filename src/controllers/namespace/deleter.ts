// One pass over a terminating namespace, through the API only, as kube-controller-manager's namespaced resources
// deleter makes it: mark it Terminating if the server has not, discover every namespaced resource (built in and
// custom), delete each resource's objects (deletecollection where served, else one by one), look at what is left,
// write the five deletion conditions, and once nothing is left remove the `kubernetes` finalizer through /finalize
// (the API server then removes the namespace). The decisions are in conditions.ts, content.ts and discovery.ts.

import {
  FINALIZER_KUBERNETES,
  NAMESPACE_TERMINATING,
  namespacePhase,
  namespaceSpecFinalizers,
} from '../../api/namespace.js';
import type { Namespace } from '../../api/types.js';
import { isApiError, type KubeObject, type RestClient } from '../../client/index.js';
import { formatTime, type Clock } from '../../util/clock.js';
import { errorMessage } from '../../util/errors.js';
import { klog } from '../../util/klog.js';
import { updateConditions, type DeletionPass } from './conditions.js';
import { collectionPath, finalizersWithout, remainderOf, type Remainder } from './content.js';
import {
  deletableResources,
  discoveryFailureMessage,
  preferredNamespacedResources,
  type DeletableResource,
} from './discovery.js';
import { discover, type Discovery, type ResourceList } from '../../client/discovery.js';
import { logs } from './messages.js';

type NamespaceObject = Namespace & KubeObject;

/** Conflicting writes of the namespace are retried on a fresh read this many times before the pass fails. */
const MAX_CONFLICT_RETRIES = 5;

/** The namespace controller deletes generically; the garbage collector is not to orphan anything (kube sends the same). */
const BACKGROUND = { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background' };

export class ContentRemainingError extends Error {
  constructor(readonly estimateSeconds: number) {
    super(`some content remains in the namespace, estimate ${estimateSeconds} seconds before it is removed`);
    this.name = 'ContentRemainingError';
  }
}

const nsPath = (name: string): string => `/api/v1/namespaces/${encodeURIComponent(name)}`;
/** 404 and 405: the resource does not serve the operation after all (the deleter then does without it). */
const notServed = (err: unknown): boolean => isApiError(err, 404) || isApiError(err, 405);

export class NamespacedResourcesDeleter {
  constructor(
    private readonly client: RestClient,
    private readonly clock: Clock,
    private readonly signal: AbortSignal,
    private readonly token: string = FINALIZER_KUBERNETES,
  ) {}

  /**
   * One pass over `name`: resolves when there is nothing (more) to do, throws ContentRemainingError when objects are
   * still going (look again after its estimate), or the failure that stopped the pass.
   */
  async delete(name: string): Promise<void> {
    let ns = await this.getOrUndefined(name);
    if (!ns?.metadata.deletionTimestamp) return;
    ns = await this.retryOnConflict(ns, (n) => this.markTerminating(n));
    if (!ns?.metadata.deletionTimestamp || namespaceSpecFinalizers(ns).length === 0) return;
    const { estimateSeconds, errors, namespace } = await this.deleteAllContent(ns);
    if (errors.length > 0) throw new Error(errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`);
    if (estimateSeconds > 0) throw new ContentRemainingError(estimateSeconds);
    await this.retryOnConflict(namespace, (n) => this.finalize(n));
  }

  private async getOrUndefined(name: string): Promise<NamespaceObject | undefined> {
    try {
      return await this.client.get<NamespaceObject>(nsPath(name), { signal: this.signal });
    } catch (err) {
      if (isApiError(err, 404)) return undefined;
      throw err;
    }
  }

  /** Runs `write` on the freshest namespace until no conflict, a bounded number of times; undefined once it is gone. */
  private async retryOnConflict(
    ns: NamespaceObject,
    write: (ns: NamespaceObject) => Promise<NamespaceObject>,
  ): Promise<NamespaceObject | undefined> {
    let latest = ns;
    for (let attempt = 0; ; attempt++) {
      try {
        return await write(latest);
      } catch (err) {
        if (isApiError(err, 404)) return undefined;
        if (!isApiError(err, 409) || attempt >= MAX_CONFLICT_RETRIES) throw err;
      }
      const fresh = await this.getOrUndefined(ns.metadata.name ?? '');
      if (!fresh) return undefined;
      if (fresh.metadata.uid !== ns.metadata.uid) throw new Error('namespace uid has changed across retries');
      latest = fresh;
    }
  }

  private async markTerminating(ns: NamespaceObject): Promise<NamespaceObject> {
    if (!ns.metadata.deletionTimestamp || namespacePhase(ns) === NAMESPACE_TERMINATING) return ns;
    const status = { ...ns.status, phase: NAMESPACE_TERMINATING };
    return this.client.update<NamespaceObject>(
      `${nsPath(ns.metadata.name ?? '')}/status`,
      { ...ns, status },
      { signal: this.signal },
    );
  }

  /** Removes this deleter's token from spec.finalizers through /finalize (the namespace goes when none is left). */
  private async finalize(ns: NamespaceObject): Promise<NamespaceObject> {
    const spec = { ...ns.spec, finalizers: finalizersWithout(namespaceSpecFinalizers(ns), this.token) };
    const body = { apiVersion: 'v1', kind: 'Namespace', metadata: ns.metadata, spec };
    const out = await this.client.update<NamespaceObject>(`${nsPath(ns.metadata.name ?? '')}/finalize`, body, {
      signal: this.signal,
    });
    klog.info(logs.finalized(ns.metadata.name ?? '', spec.finalizers));
    return out;
  }

  /** Deletes what the namespace holds; reports what is left, the failures, and the namespace as last written. */
  private async deleteAllContent(
    ns: NamespaceObject,
  ): Promise<{ estimateSeconds: number; errors: string[]; namespace: NamespaceObject }> {
    const name = ns.metadata.name ?? '';
    const pass: DeletionPass = { contentFailures: [], remaining: [], finalizers: {} };
    const errors: string[] = [];
    const found = await this.discover();
    if (found.failure !== undefined) errors.push((pass.discoveryFailure = found.failure));
    const deletable = deletableResources(found.lists);
    if ('error' in deletable) errors.push((pass.groupVersionFailure = deletable.error));
    let estimateSeconds = 0;
    for (const gvr of 'error' in deletable ? [] : deletable.resources) {
      const left = await this.deleteResource(name, gvr).catch((err: unknown): Remainder => ({
        estimateSeconds: 0,
        count: 0,
        finalizers: {},
        error: errorMessage(err),
      }));
      if (left.error !== undefined) {
        errors.push(left.error);
        pass.contentFailures.push(left.error);
      }
      estimateSeconds = Math.max(estimateSeconds, left.estimateSeconds);
      if (left.count === 0) continue;
      pass.remaining.push({ gvr, count: left.count });
      for (const [f, n] of Object.entries(left.finalizers)) pass.finalizers[f] = (pass.finalizers[f] ?? 0) + n;
    }
    const { conditions, changed } = updateConditions(ns.status?.conditions ?? [], pass, formatTime(this.clock.now()));
    let namespace = ns;
    if (changed) {
      // As kube's deleter: a failure to record the conditions is logged, and the pass goes on.
      const body = { ...ns, status: { ...ns.status, conditions } };
      namespace = await this.client
        .update<NamespaceObject>(`${nsPath(name)}/status`, body, { signal: this.signal })
        .catch((err: unknown) => {
          klog.error(logs.conditionsFailed(name, errorMessage(err)));
          return ns;
        });
    }
    return { estimateSeconds, errors, namespace };
  }

  /** Every namespaced resource in its group's preferred version; a failure names the group versions that failed. */
  private async discover(): Promise<{ lists: ResourceList[]; failure?: string }> {
    let found: Discovery;
    try {
      found = await discover(this.client, this.signal);
    } catch (err) {
      return { lists: [], failure: errorMessage(err) };
    }
    const lists = preferredNamespacedResources(found.groups, found.lists);
    if (found.failed.size === 0) return { lists };
    const failed = Object.fromEntries([...found.failed].map(([gv, err]) => [gv, errorMessage(err)]));
    return { lists, failure: discoveryFailureMessage(failed) };
  }

  /** Deletes `gvr`'s objects in `namespace`, then reads what is left. */
  private async deleteResource(namespace: string, gvr: DeletableResource): Promise<Remainder> {
    const path = collectionPath(gvr, namespace);
    let deleted = false;
    if (gvr.verbs.includes('deletecollection')) {
      deleted = await this.client.delete(path, { body: BACKGROUND, signal: this.signal }).then(
        () => true,
        (err: unknown) => (notServed(err) ? false : Promise.reject(err)),
      );
    }
    if (!deleted) {
      for (const o of (await this.listOrUndefined(path, gvr)) ?? []) {
        await this.client
          .delete(`${path}/${encodeURIComponent(o.metadata?.name ?? '')}`, { body: BACKGROUND, signal: this.signal })
          .catch((err: unknown) => {
            if (!notServed(err)) throw err;
          });
      }
    }
    const left = await this.listOrUndefined(path, gvr);
    return left === undefined ? { estimateSeconds: 0, count: 0, finalizers: {} } : remainderOf(namespace, gvr, left);
  }

  /** The objects at `path`, or undefined when the resource does not serve list. */
  private async listOrUndefined(path: string, gvr: DeletableResource): Promise<KubeObject[] | undefined> {
    if (!gvr.verbs.includes('list')) return undefined;
    try {
      return (await this.client.list<{ items?: KubeObject[] }>(path, { signal: this.signal })).items ?? [];
    } catch (err) {
      if (notServed(err)) return undefined;
      throw err;
    }
  }
}
