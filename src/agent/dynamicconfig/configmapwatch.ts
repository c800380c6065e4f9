// The assigned ConfigMap's informer (field-selected on its name, so the Node authorizer can scope it): it pokes the
// sync when the ConfigMap changes and serves the sync's download from its cache. It follows the ConfigMap this boot
// was assigned, from the start of the sync to the agent's stop.
//
// A 1.8-alpha configMapRef is followed with GETs only: its reader may hold nothing but `get` on that one ConfigMap
// (the role the 1.8 task grants by hand), so a list or watch would be refused again and again. The informer (started
// at once, as the 1.22 form needs it) stops when the Node shows a configMapRef, and starts again when it shows the
// 1.22 form.

import type { ListWatcher } from '../../client/informer.js';
import { Informer, type KubeObject as ClientObject } from '../../client/index.js';
import type { Clock } from '../../util/clock.js';
import { FailureLog } from './failurelog.js';
import { log } from './log.js';
import { configMapsPath, fieldSelectorValue, type ConfigMapNodeConfigSource, type NodeConfigSource } from './source.js';

/** The parts of a ConfigMap a checkpoint needs. */
export interface ConfigMapPayload {
  uid?: string;
  resourceVersion?: string;
  data?: Record<string, string>;
}

export interface ConfigMapObject extends ClientObject {
  data?: Record<string, string>;
}

export function payloadOf(o: ConfigMapObject): ConfigMapPayload {
  const meta = o.metadata ?? {};
  return {
    ...(typeof meta.uid === 'string' && meta.uid ? { uid: meta.uid } : {}),
    ...(meta.resourceVersion ? { resourceVersion: meta.resourceVersion } : {}),
    data: o.data ?? {},
  };
}

export interface ConfigMapWatchDeps {
  client: ListWatcher;
  /** The ConfigMap this boot was assigned; nothing to watch when the assigned config is local. */
  assigned: ConfigMapNodeConfigSource | undefined;
  /** The ConfigMap changed: the sync should run. */
  poke(): void;
  /** Resolves true once the object that carries the assignment has been listed; false if it never will be. */
  assignmentSynced(): Promise<boolean>;
  clock: Clock;
  logIntervalMs: number;
}

export class ConfigMapWatch {
  private informer: Informer<ConfigMapObject> | undefined;
  /** The ConfigMap the informer was started for. */
  private ref: ConfigMapNodeConfigSource | undefined;

  constructor(private readonly deps: ConfigMapWatchDeps) {}

  start(): void {
    if (this.deps.assigned) this.startInformer(this.deps.assigned);
    else log('local source is assigned, will not start remote config source informer');
  }

  /** The assignment changed: stop the informer for a configMapRef, start it again for the 1.22 form. */
  follow(source: NodeConfigSource | null | undefined): void {
    const assigned = this.deps.assigned;
    if (!assigned) return;
    if (source?.configMapRef) {
      void this.informer?.stop(); // the informer loop catches its own errors: stop() never rejects
      this.informer = undefined;
    } else if (!this.informer) {
      this.startInformer(assigned);
    }
  }

  /** The ConfigMap `ref` names from the informer's cache, when the informer follows it and holds it. */
  cached(ref: ConfigMapNodeConfigSource): ConfigMapPayload | undefined {
    if (!this.informer || !this.ref || this.ref.namespace !== ref.namespace || this.ref.name !== ref.name) {
      return undefined;
    }
    const cached = this.informer.store.get(`${ref.namespace}/${ref.name}`);
    return cached ? payloadOf(cached) : undefined;
  }

  stop(): void {
    void this.informer?.stop();
  }

  private startInformer(assigned: ConfigMapNodeConfigSource): void {
    this.ref = assigned;
    let path: string;
    try {
      path = configMapsPath(assigned.namespace);
    } catch {
      return; // `..` and the like: the sync's download refuses the same reference and reports it
    }
    const informer = new Informer<ConfigMapObject>(this.deps.client, path, {
      fieldSelector: `metadata.name=${fieldSelectorValue(assigned.name)}`,
    });
    this.informer = informer;
    const what = `assigned ConfigMap ${assigned.namespace}/${assigned.name}`;
    const failures = new FailureLog(what, this.deps.logIntervalMs, this.deps.clock);
    informer.on('error', (err) => void this.failed(informer, failures, err));
    informer.on('add', () => this.deps.poke());
    informer.on('update', (oldObj, newObj) => {
      if (oldObj.metadata?.resourceVersion !== newObj.metadata?.resourceVersion) this.deps.poke();
    });
    informer.on('delete', () => {
      log('assigned ConfigMap was deleted');
      this.deps.poke();
    });
    informer.start();
  }

  /** An informer failure is reported unless the assignment turned out to name its ConfigMap with a configMapRef. */
  private async failed(informer: Informer<ConfigMapObject>, failures: FailureLog, err: unknown): Promise<void> {
    if (!(await this.deps.assignmentSynced())) return;
    if (this.informer !== informer) return;
    failures.failed(err);
  }
}
