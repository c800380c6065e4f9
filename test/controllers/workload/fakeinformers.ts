// Informers a test feeds by hand, for the workload controllers' hosts: the test decides when the controller sees an
// object (a watch that lags behind the controller's own writes is the case expectations exist for), and a client
// that records the writes and answers them without telling any informer.

import type { KubeObject } from '../../../src/client/index.js';
import type { InformerHandlers, InformerStore } from '../../../src/client/informer.js';
import { objectKey } from '../../../src/client/informer.js';
import type { InformerLike, SharedInformerFactory } from '../../../src/client/sharedinformers.js';

export class FakeInformer<T extends KubeObject> implements InformerLike<T> {
  private readonly objects = new Map<string, T>();
  private readonly handlers: { [E in keyof InformerHandlers<T>]: InformerHandlers<T>[E][] } = {
    add: [],
    update: [],
    delete: [],
    error: [],
  };

  constructor(readonly path: string) {}

  readonly store: InformerStore<T> = ((objects) => ({
    get: (key: string) => objects.get(key),
    has: (key: string) => objects.has(key),
    list: () => [...objects.values()],
    keys: () => [...objects.keys()],
    get size() {
      return objects.size;
    },
  }))(this.objects);

  hasSynced = () => true;
  whenSynced = () => Promise.resolve(true);
  start = () => undefined;
  stop = () => Promise.resolve();

  on<E extends keyof InformerHandlers<T>>(event: E, handler: InformerHandlers<T>[E]): () => void {
    this.handlers[event].push(handler);
    return () => undefined;
  }

  /** The watch delivers `obj`: an add, or an update of what the store held. */
  deliver(obj: T): void {
    const key = objectKey(obj);
    const old = this.objects.get(key);
    this.objects.set(key, obj);
    if (old) for (const h of this.handlers.update) h(old, obj);
    else for (const h of this.handlers.add) h(obj);
  }

  /** The watch delivers the deletion of `obj`. */
  remove(obj: T): void {
    const key = objectKey(obj);
    const old = this.objects.get(key);
    if (!old) return;
    this.objects.delete(key);
    for (const h of this.handlers.delete) h(old);
  }
}

/** A factory handing out one FakeInformer per path. */
export function fakeInformers(): {
  factory: SharedInformerFactory;
  of: <T extends KubeObject>(path: string) => FakeInformer<T>;
} {
  const byPath = new Map<string, FakeInformer<KubeObject>>();
  const of = <T extends KubeObject>(path: string): FakeInformer<T> => {
    let i = byPath.get(path);
    if (!i) byPath.set(path, (i = new FakeInformer<KubeObject>(path)));
    return i as unknown as FakeInformer<T>;
  };
  const factory = { informer: of } as unknown as SharedInformerFactory;
  return { factory, of };
}

export interface RecordedWrite {
  method: 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  body?: unknown;
}

/** What a test answers instead of the recording client: a create's rejection, a read. */
export interface ClientOverrides {
  /** A rejection for this create, or undefined to let it succeed. */
  failCreate?: (path: string, body: unknown) => Error | undefined;
  get?: (path: string) => Promise<unknown>;
}

/** A client whose writes succeed and are recorded (events apart), named as a server would name them. */
export function recordingClient(overrides: ClientOverrides = {}): { client: unknown; writes: RecordedWrite[] } {
  const writes: RecordedWrite[] = [];
  let n = 0;
  const named = (body: unknown) => {
    const o = structuredClone(body) as KubeObject & { metadata: { generateName?: string } };
    o.metadata.name ??= `${o.metadata.generateName ?? 'x-'}${++n}`;
    o.metadata.uid = `uid-${n}`;
    return o;
  };
  const client = {
    create: (path: string, body: unknown) => {
      if (path.endsWith('/events')) return Promise.resolve(body);
      writes.push({ method: 'POST', path, body });
      const failure = overrides.failCreate?.(path, body);
      return failure ? Promise.reject(failure) : Promise.resolve(named(body));
    },
    update: (path: string, body: unknown) => (writes.push({ method: 'PUT', path, body }), Promise.resolve(body)),
    patch: (path: string, _t: string, body: unknown) => (
      writes.push({ method: 'PATCH', path, body }),
      Promise.resolve({})
    ),
    delete: (path: string) => (writes.push({ method: 'DELETE', path }), Promise.resolve({})),
    get: (path: string) => overrides.get?.(path) ?? Promise.reject(new Error(`no read of ${path} in this test`)),
  };
  return { client, writes };
}
