// One informer per resource per process, as client-go's shared informer factory: controllers hosted together (the
// rollout and node lifecycle controllers both watch every Node and every node Lease) ask the factory for a path and
// get a handle on the one informer of that path, so the API server sees one list and one watch, and the process
// keeps one cache. A handle starts the informer (once), and its stop removes only its own handlers; the factory's
// owner stops the informers. A handler added once the informer has synced is first given every object in the cache
// as an add, as client-go's AddEventHandler does, so a late user sees what an early one saw.

import {
  Informer,
  type InformerHandlers,
  type InformerOptions,
  type InformerStore,
  type KubeObject,
  type ListWatcher,
} from './informer.js';

/** What a user of an informer, shared or not, may do with it. */
export interface InformerLike<T extends KubeObject> {
  readonly path: string;
  readonly store: InformerStore<T>;
  hasSynced(): boolean;
  whenSynced(): Promise<boolean>;
  on<E extends keyof InformerHandlers<T>>(event: E, handler: InformerHandlers<T>[E]): () => void;
  start(): void;
  stop(): Promise<void>;
}

/** The selectors that make two informers of one path different ones. */
export type InformerSelectors = Pick<InformerOptions, 'fieldSelector' | 'labelSelector'>;

class SharedInformer<T extends KubeObject> implements InformerLike<T> {
  private readonly removers: (() => void)[] = [];
  private stopped = false;
  private release: (() => void) | undefined;
  private readonly released = new Promise<false>((resolve) => (this.release = () => resolve(false)));

  constructor(private readonly informer: Informer<T>) {}

  get path(): string {
    return this.informer.path;
  }

  get store(): InformerStore<T> {
    return this.informer.store;
  }

  hasSynced(): boolean {
    return this.informer.hasSynced();
  }

  /** As the informer's, but false once this handle is stopped: its user waits no longer than it runs. */
  whenSynced(): Promise<boolean> {
    if (this.stopped) return Promise.resolve(this.informer.hasSynced());
    return Promise.race([this.informer.whenSynced(), this.released]);
  }

  on<E extends keyof InformerHandlers<T>>(event: E, handler: InformerHandlers<T>[E]): () => void {
    const remove = this.informer.on(event, handler);
    this.removers.push(remove);
    if (event === 'add' && this.informer.hasSynced()) {
      for (const obj of this.informer.store.list()) (handler as InformerHandlers<T>['add'])(obj);
    }
    return remove;
  }

  start(): void {
    this.informer.start();
  }

  /** This user is done: its handlers go; the informer runs on for the others until the factory stops. */
  stop(): Promise<void> {
    this.stopped = true;
    for (const remove of this.removers.splice(0)) remove();
    this.release?.();
    return Promise.resolve();
  }
}

export class SharedInformerFactory {
  private readonly informers = new Map<string, Informer<KubeObject>>();
  private stopped = false;

  constructor(
    private readonly client: ListWatcher,
    private readonly options: Omit<InformerOptions, keyof InformerSelectors> = {},
  ) {}

  /** A handle on the one informer of `path` with these selectors in this process. */
  informer<T extends KubeObject>(path: string, selectors: InformerSelectors = {}): InformerLike<T> {
    if (this.stopped) throw new Error(`informer factory stopped: cannot hand out ${path}`);
    const key = `${path}?${selectors.fieldSelector ?? ''}&${selectors.labelSelector ?? ''}`;
    let informer = this.informers.get(key);
    if (!informer)
      this.informers.set(
        key,
        (informer = new Informer<KubeObject>(this.client, path, { ...this.options, ...selectors })),
      );
    return new SharedInformer(informer as unknown as Informer<T>);
  }

  /** How many informers the factory runs (one per path and selectors). */
  get size(): number {
    return this.informers.size;
  }

  /** Stops every informer; resolves when none will call a handler again. */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all([...this.informers.values()].map((i) => i.stop()));
  }
}
