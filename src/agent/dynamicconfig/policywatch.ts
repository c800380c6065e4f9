// Keeping the agent's policy gate (policy.ts) current while it runs: the NodeConfigPolicies come from a feed (an
// informer on the agent's own client; a fleet shares one among its nodes), the node's labels from the controller's
// Node informer, and whenever the Deny policies that govern the node change, the gate takes them (and writes them
// down for the next boot) and the controller decides again what to run. The sync loop accepts no new assignment
// until the gate has seen the policies and the labels once, so that a boot never judges a new config by an old
// snapshot.
//
// A server that does not serve NodeConfigPolicy (404) has none to enforce; any other failure to list them keeps new
// assignments waiting, as a Node that cannot be listed does.

import { isApiError, Informer, type KubeObject, type ListWatcher } from '../../client/index.js';
import { matchesLabels, type Labels } from '../../api/selectors.js';
import { deepEqual } from '../../api/equal.js';
import { POLICY_GROUP, POLICY_PLURAL } from '../../api/dkc/policy.js';
import { readPolicy, type NodeConfigPolicy } from '../../nodepolicy/spec.js';
import { logError } from './log.js';
import { errorMessage } from '../../util/errors.js';

export const POLICIES_PATH = `/apis/${POLICY_GROUP}/v1alpha1/${POLICY_PLURAL}`;

/** The NodeConfigPolicies as listed and watched. */
export interface PolicyFeed {
  /** The policy objects once listed (none when the kind is not served); undefined before. */
  current(): KubeObject[] | undefined;
  /** Resolves true once current() answers, false if the feed is closed first. */
  whenSynced(): Promise<boolean>;
  /** Calls `listener` on every change after the first list; returns the function that stops it. */
  onChange(listener: () => void): () => void;
  /** Stops this user's use of the feed. */
  close(): void;
}

/** An informer-backed feed on one client; `close` stops the informer. */
export function informerPolicyFeed(client: ListWatcher, onError: (err: unknown) => void = () => undefined): PolicyFeed {
  const informer = new Informer<KubeObject>(client, POLICIES_PATH);
  const listeners = new Set<() => void>();
  let notServed = false;
  let resolveNotServed!: () => void;
  const notServedYet = new Promise<void>((r) => (resolveNotServed = r));
  const changed = (): void => {
    for (const l of listeners) l();
  };
  informer.on('add', changed);
  informer.on('update', changed);
  informer.on('delete', changed);
  informer.on('error', (err) => {
    if (isApiError(err, 404) && !informer.hasSynced()) {
      if (!notServed) {
        notServed = true;
        resolveNotServed();
        changed();
      }
      return;
    }
    onError(err);
  });
  informer.start();
  return {
    current: () => (informer.hasSynced() ? informer.store.list() : notServed ? [] : undefined),
    whenSynced: () => Promise.race([informer.whenSynced(), notServedYet.then(() => true)]),
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close: () => void informer.stop(),
  };
}

/**
 * One feed for many nodes in one process (a fleet): started by the first user, stopped when the last one closes.
 * `open` makes the underlying feed.
 */
export function sharedPolicyFeed(open: () => PolicyFeed): () => PolicyFeed {
  let shared: PolicyFeed | undefined;
  let users = 0;
  return () => {
    shared ??= open();
    const feed = shared;
    users++;
    const mine = new Set<() => void>();
    let closed = false;
    return {
      current: () => feed.current(),
      whenSynced: () => feed.whenSynced(),
      onChange(listener) {
        const off = feed.onChange(listener);
        mine.add(off);
        return () => {
          off();
          mine.delete(off);
        };
      },
      close() {
        if (closed) return;
        closed = true;
        for (const off of mine) off();
        if (--users === 0) {
          feed.close();
          shared = undefined;
        }
      },
    };
  };
}

/** What the watch keeps current: a PolicySnapshot, or the agent's PolicyGate over one. */
export interface GoverningPolicies {
  /** Takes the policies that govern the node now; true when the Deny ones changed. */
  update(governing: readonly NodeConfigPolicy[]): Promise<boolean>;
}

export class PolicyWatch {
  private labels: Labels | undefined;
  private queue: Promise<void> = Promise.resolve();
  private off: (() => void) | undefined;
  private stopped = false;
  private firstRefresh: Promise<boolean> | undefined;
  private resolveFirst!: (ok: boolean) => void;

  constructor(
    private readonly gate: GoverningPolicies,
    private readonly feed: PolicyFeed,
    /** The governing Deny policies changed (after the first look, whose change is reported too). */
    private readonly changed: () => void,
  ) {
    this.firstRefresh = new Promise((r) => (this.resolveFirst = r));
  }

  start(): void {
    this.off = this.feed.onChange(() => this.refresh());
    void this.feed.whenSynced().then((ok) => (ok ? this.refresh() : this.resolveFirst(false)));
  }

  /** The node's labels, from its informer. */
  setLabels(labels: Labels): void {
    if (this.labels !== undefined && deepEqual(this.labels, labels ?? {})) return;
    this.labels = { ...(labels ?? {}) };
    this.refresh();
  }

  /** Resolves true once the gate holds the policies that govern the node now; false when stopped first. */
  ready(): Promise<boolean> {
    return this.firstRefresh ?? Promise.resolve(true);
  }

  stop(): void {
    this.stopped = true;
    this.off?.();
    this.feed.close();
    this.resolveFirst(false);
  }

  private refresh(): void {
    this.queue = this.queue.then(async () => {
      const objects = this.feed.current();
      const labels = this.labels;
      if (this.stopped || objects === undefined || labels === undefined) return;
      const governing = objects
        .map((o) => readPolicy({ ...o, metadata: o.metadata ?? {} }))
        .filter((p) => matchesLabels(p.selector, labels));
      let changed = false;
      try {
        changed = await this.gate.update(governing);
      } catch (err) {
        logError(`failed to take the NodeConfigPolicies that govern the node, error: ${errorMessage(err)}`);
      }
      if (this.firstRefresh !== undefined) {
        this.firstRefresh = undefined;
        this.resolveFirst(true);
      }
      if (changed && !this.stopped) this.changed();
    });
  }
}
