// What the API server says about a fleet's nodes: how many are registered and how many report Ready, from one informer
// on the Nodes (what an operator would see with kubectl, not what the fleet believes of itself). A Ready condition
// whose heartbeat is older than the fleet counts as not yet Ready: it was left in the store by an earlier run.

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

/** Whether `node` reports Ready=True with a heartbeat at or after `sinceMs` (to the second, as metav1.Time is written). Pure. */
export function readySince(node: NodeLike, sinceMs: number): boolean {
  const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
  if (ready?.status !== 'True' || !ready.lastHeartbeatTime) return false;
  return Date.parse(ready.lastHeartbeatTime) >= Math.floor(sinceMs / 1000) * 1000;
}

export class ProgressTracker {
  private readonly informer: Informer<NodeLike & { [k: string]: unknown }>;
  private readonly readyNames = new Set<string>();
  private readonly registeredNames = new Set<string>();
  /** Called with true on every change, with false when the tracker stops. */
  private readonly waiters = new Set<(more: boolean) => void>();

  constructor(client: RestClient, private readonly names: ReadonlySet<string>, private readonly sinceMs: number) {
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

  private observe(n: NodeLike): void {
    const name = n.metadata?.name ?? '';
    if (!this.names.has(name)) return;
    this.registeredNames.add(name);
    if (readySince(n, this.sinceMs)) this.readyNames.add(name);
    else this.readyNames.delete(name);
    for (const w of [...this.waiters]) w(true);
  }
}
