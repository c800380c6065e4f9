// Turns CustomResourceDefinitions into served resources, as apiextensions-apiserver's naming and establishing
// controllers do: it accepts a CRD's names unless another resource holds them, records NamesAccepted,
// Established, KubernetesAPIApprovalPolicyConformant (protected groups) and storedVersions in the CRD's status, and
// mounts each served version in the API server. Every replica follows the CRDs through its own watch cache, so a CRD
// created on one replica is served by all. At its first start it moves custom objects stored under the layout of
// older servers to their own keys (migrate.ts), before it serves any of them.

import { StatusError } from '../../api/errors.js';
import { deepEqual } from '../../api/equal.js';
import type { KubeObject } from '../../api/types.js';
import type { Store } from '../../storage/store.js';
import { formatTime, systemClock, type Clock } from '../../util/clock.js';
import { klog } from '../../util/klog.js';
import type { UserInfo } from '../authz.js';
import { KeyQueue } from '../keyqueue.js';
import type { ResourceDef } from '../resourcedef.js';
import type { ResourceStorage, WriteContext } from '../resources.js';
import { buildSelection } from '../selection.js';
import { approvalCondition } from './approval.js';
import { customResourceDef, customResourceDefinitions } from './definition.js';
import { legacyMoves, migrateLegacyObjects } from './migrate.js';
import { msg } from './messages.js';
import type { Crd, CrdCondition, CrdNames } from './types.js';

/** What the registrar needs of the API server. */
export interface ResourceHost {
  readonly registry: { readonly all: readonly ResourceDef[] };
  storageOf(def: ResourceDef): ResourceStorage | undefined;
  addResource(def: ResourceDef): Promise<void>;
  removeResource(def: ResourceDef): void;
  /** A storage for a resource that is not (or no longer) served, to delete its objects through. */
  detachedStorage(def: ResourceDef): ResourceStorage;
}

const SYSTEM: UserInfo = { name: 'system:apiserver', groups: ['system:masters'] };
const systemWrite = (): WriteContext => ({ user: SYSTEM, dryRun: false, fieldValidation: 'Ignore', warnings: [] });

interface Mounted {
  /** uid, generation and whether established: what the served resources depend on (status writes change none). */
  version: string;
  uid: string;
  defs: ResourceDef[];
}

export class CrdRegistrar {
  private readonly mounted = new Map<string, Mounted>();
  private readonly queue = new KeyQueue();
  private watch?: { cancel(): void };
  private stopped = false;
  private retry?: NodeJS.Timeout;
  private migrated = false;

  constructor(
    private readonly host: ResourceHost,
    private readonly store: Store,
    /** Wall time, for the conditions' lastTransitionTime. */
    private readonly clock: Clock = systemClock,
  ) {}

  private get storage(): ResourceStorage {
    return this.host.storageOf(customResourceDefinitions)!;
  }

  /** Mounts every CRD there is, then follows changes. */
  async start(): Promise<void> {
    const cache = this.storage.cache;
    const from = cache.currentRevision;
    if (!this.migrated) {
      const builtins = this.host.registry.all.filter((d) => !d.custom);
      await migrateLegacyObjects(this.store, legacyMoves(cache.snapshot() as unknown as Crd[], builtins));
      this.migrated = true;
    }
    for (const crd of cache.snapshot()) await this.reconcile(crd).catch((err: unknown) => this.logFailure(crd, err));
    this.follow(from);
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.retry);
    this.watch?.cancel();
  }

  private follow(from: number): void {
    if (this.stopped) return;
    this.watch = this.storage.cache.watch(from, {
      matches: () => true,
      deliver: (events) => {
        for (const e of events) {
          const work = e.type === 'DELETED' ? this.unmount(e.object) : this.reconcile(e.object).then(() => undefined);
          work.catch((err: unknown) => this.logFailure(e.object, err));
        }
      },
      terminate: () => {
        if (this.stopped) return;
        // The cache is relisting: catch up from its new state once it is ready again.
        this.retry = setTimeout(
          () => void this.start().catch((err: unknown) => klog.error(`CRD registrar: ${String(err)}`)),
          1000,
        );
      },
    });
  }

  private logFailure(obj: KubeObject, err: unknown): void {
    klog.error(`CustomResourceDefinition ${obj.metadata.name ?? ''}: ${(err as Error)?.message ?? String(err)}`);
  }

  /** Brings a CRD's status and its served resources up to date; returns the CRD as stored afterwards. */
  reconcile(obj: KubeObject): Promise<KubeObject> {
    const name = obj.metadata.name ?? '';
    return this.queue.run(name, async () => {
      let current: KubeObject;
      try {
        current = await this.storage.get('', name);
      } catch (err) {
        if (err instanceof StatusError && err.code === 404) {
          await this.unmount(obj);
          return obj;
        }
        throw err;
      }
      const crd = current as unknown as Crd;
      const status = this.desiredStatus(crd);
      if (!deepEqual(status, crd.status ?? {})) {
        current = await this.storage.update('', name, { ...current, status }, 'status', systemWrite());
      }
      await this.mount(current as unknown as Crd);
      return current;
    });
  }

  /** Conditions as apiextensions-apiserver's controllers write them: lastTransitionTime moves only with status. */
  private desiredStatus(crd: Crd): NonNullable<Crd['status']> {
    const conflict = this.nameConflict(crd);
    const now = formatTime(this.clock.now());
    const old = crd.status?.conditions ?? [];
    const cond = (type: string, ok: boolean, reason: string, message: string): CrdCondition => {
      const status = ok ? 'True' : 'False';
      const prev = old.find((c) => c.type === type);
      const lastTransitionTime =
        prev && prev.status === status && prev.lastTransitionTime ? prev.lastTransitionTime : now;
      return { type, status, lastTransitionTime, reason, message };
    };
    const approval = approvalCondition(crd.spec.group ?? '', crd.metadata.annotations);
    const conditions = [
      ...(approval
        ? [
            cond(
              'KubernetesAPIApprovalPolicyConformant',
              approval.status === 'True',
              approval.reason ?? '',
              approval.message ?? '',
            ),
          ]
        : []),
      conflict
        ? cond('NamesAccepted', false, 'NameConflict', conflict)
        : cond('NamesAccepted', true, msg.namesAccepted.reason, msg.namesAccepted.message),
      conflict
        ? cond('Established', false, msg.notAccepted.reason, msg.notAccepted.message)
        : cond('Established', true, msg.established.reason, msg.established.message),
    ];
    const storageVersion = (crd.spec.versions ?? []).find((v) => v.storage)?.name;
    const stored = [...(crd.status?.storedVersions ?? [])];
    if (!conflict && storageVersion && !stored.includes(storageVersion)) stored.push(storageVersion);
    const acceptedNames: CrdNames = conflict
      ? (crd.status?.acceptedNames ?? { plural: '', kind: '' })
      : acceptedNamesOf(crd.spec.names ?? {});
    return { conditions, acceptedNames, storedVersions: stored };
  }

  /** Another served resource of the same group with this plural or kind (apiextensions' naming controller). */
  private nameConflict(crd: Crd): string | undefined {
    const group = crd.spec.group;
    const names = crd.spec.names ?? {};
    const mine = this.mounted.get(crd.metadata.name ?? '');
    for (const def of this.host.registry.all) {
      if (def.group !== group || (mine && mine.defs.includes(def))) continue;
      if (def.custom && def.custom.crdUid === crd.metadata.uid) continue;
      if (def.plural === names.plural) return msg.pluralInUse(names.plural ?? '');
      if (def.kind === names.kind) return msg.kindInUse(names.kind ?? '');
    }
    return undefined;
  }

  private async mount(crd: Crd): Promise<void> {
    const name = crd.metadata.name ?? '';
    const established = crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True');
    const existing = this.mounted.get(name);
    const version = `${crd.metadata.uid ?? ''}/${crd.metadata.generation ?? 0}/${established ? 'established' : 'not'}`;
    if (existing && existing.version === version) return;
    const defs = established
      ? (crd.spec.versions ?? []).filter((v) => v.served).map((v) => customResourceDef(crd, v))
      : [];
    for (const def of existing?.defs ?? []) this.host.removeResource(def);
    for (const def of defs) await this.host.addResource(def);
    this.mounted.set(name, { version, uid: crd.metadata.uid ?? '', defs });
  }

  private async unmount(obj: KubeObject): Promise<void> {
    const name = obj.metadata.name ?? '';
    const existing = this.mounted.get(name);
    if (!existing || (obj.metadata.uid && existing.uid !== obj.metadata.uid)) return;
    for (const def of existing.defs) this.host.removeResource(def);
    this.mounted.delete(name);
  }

  /**
   * A deleted CRD takes its objects along (kube-apiserver's customresourcecleanup finalizer does this before the
   * CRD goes; here the replica that deleted it does it at once). The resource is rebuilt from the deleted CRD rather
   * than looked up: the CRD's DELETED event may already have unmounted it. Returns how many objects went.
   */
  async deleteObjects(obj: KubeObject): Promise<number> {
    await this.unmount(obj);
    const crd = obj as unknown as Crd;
    const version = (crd.spec?.versions ?? []).find((v) => v.storage);
    if (!version) return 0;
    const def = customResourceDef(crd, version);
    const deleted = await this.host
      .detachedStorage(def)
      .deleteCollection('', buildSelection(def, undefined, undefined, ''), {}, systemWrite());
    return deleted.length;
  }
}

function acceptedNamesOf(names: CrdNames): CrdNames {
  const kind = names.kind ?? '';
  const out: CrdNames = {
    plural: names.plural ?? '',
    singular: names.singular || kind.toLowerCase(),
    kind,
    listKind: names.listKind || `${kind}List`,
  };
  if (names.shortNames?.length) out.shortNames = names.shortNames;
  if (names.categories?.length) out.categories = names.categories;
  return out;
}
