// What the API server says about a fleet's nodes: how many are registered and how many report Ready, from one informer
// on the Nodes (what an operator would see with kubectl, not what the fleet believes of itself). A Ready condition
// whose heartbeat is older than the fleet counts as not yet Ready: it was left in the store by an earlier run.

import { readySince } from '../api/node.js';
import { Informer, type RestClient } from '../client/index.js';

interface NodeLike {
  metadata?: { name?: string };
  status?: { conditions?: { type?: string; status?: string; lastHeartbeatTime?: string | null }[] };
}

export interface FleetProgress {
  total: number;
  registered: number;
  ready: number;
}

export class ProgressTracker {
  private readonly informer: Informer<NodeLike & { [k: string]: unknown }>;
  private readonly readyNames = new Set<string>();
  private readonly registeredNames = new Set<string>();
  /** Called with true on every change, with false when the tracker stops. */
  private readonly waiters = new Set<(more: boolean) => void>();
  private readonly registrationWaiters = new Map<string, () => void>();

  constructor(
    client: RestClient,
    private readonly names: ReadonlySet<string>,
    private readonly sinceMs: number,
  ) {
    this.informer = new Informer(client, '/api/v1/nodes');
    const seen = (n: NodeLike): void => this.observe(n);
    this.informer.on('add', seen);
    this.informer.on('update', (_old, n) => seen(n));
    this.informer.on('delete', (n) => {
      const name = n.metadata?.name ?? '';
      this.registeredNames.delete(name);
      this.readyNames.delete(name);
    });
    this.informer.on('error', () => undefined);
  }

  start(): void {
    this.informer.start();
  }

  async stop(): Promise<void> {
    for (const w of [...this.waiters]) w(false);
    for (const w of [...this.registrationWaiters.values()]) w();
    await this.informer.stop();
  }

  progress(): FleetProgress {
    return { total: this.names.size, registered: this.registeredNames.size, ready: this.readyNames.size };
  }

  /** Resolves once every node is Ready, or false after `timeoutMs`. */
  allReady(timeoutMs: number): Promise<boolean> {
    if (this.readyNames.size === this.names.size) return Promise.resolve(true);
    return new Promise((resolve) => {
      const check = (more: boolean): void => {
        if (more && this.readyNames.size < this.names.size) return;
        this.waiters.delete(check);
        clearTimeout(timer);
        resolve(more);
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        resolve(false);
      }, timeoutMs);
      this.waiters.add(check);
    });
  }

  /** Resolves once `name` is Ready (its registration carried its first status), or after `timeoutMs`. */
  whenReady(name: string, timeoutMs: number): Promise<void> {
    if (this.readyNames.has(name)) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.registrationWaiters.delete(name);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      this.registrationWaiters.get(name)?.();
      this.registrationWaiters.set(name, done);
    });
  }

  private observe(n: NodeLike): void {
    const name = n.metadata?.name ?? '';
    if (!this.names.has(name)) return;
    this.registeredNames.add(name);
    if (readySince(n, this.sinceMs)) {
      this.readyNames.add(name);
      this.registrationWaiters.get(name)?.();
    } else this.readyNames.delete(name);
    for (const w of [...this.waiters]) w(true);
  }
}
