// Generic storage logic for one resource, kube-apiserver's "registry store" in small: it turns API verbs into
// store operations with the API's semantics — uid/creationTimestamp/resourceVersion, generateName, optimistic
// concurrency, no write for a no-op, status/main-resource separation, validation, admission, dry run,
// selectors and pagination. Everything it reports is a StatusError.

import { KeyQueue } from './keyqueue.js';
import { randomUUID } from 'node:crypto';
import { errors, StatusError } from '../api/errors.js';
import { deepEqual } from '../api/equal.js';
import type { KubeObject } from '../api/types.js';
import { validateCreate, validateUpdate, warningsFor } from '../api/validation/index.js';
import { StoreError, type KeyValue, type Store } from '../storage/store.js';
import { runAdmission, type AdmissionPlugin, type UserInfo } from './authz.js';
import { applyPatch } from './patch/index.js';
import { acceptedPatchMediaTypes, acceptedPatchTypes, type PatchContentType } from './patchtypes.js';
import { PatchError } from './patch/errors.js';
import type { JsonObject } from './patch/json.js';
import { apiVersionOf, type CustomResourceBehaviour, type ResourceDef } from './resourcedef.js';
import type { FieldError } from '../api/field.js';
import { decodeObject, type WatchCache } from './watchcache.js';
import type { Selection } from './selection.js';
import { checkFields, type FieldValidation } from './fieldvalidation.js';
import { ApplyError, fieldManagerFor, type ManagedFieldsEntry } from './fieldmanager/index.js';
import { applyText } from './fieldmanager/messages.js';
import { builtinKeyPrefix, customKeyPrefix } from './crd/keys.js';
import { deletedByUpdate, markDeleting, pendingFinalizers } from './finalizers.js';
import { finalizersForDelete, preconditionFailure, type DeleteOptions } from './deletion.js';
import { refuseCreateInTerminating } from './namespacelifecycle.js';
import { storedManagedFields } from './fieldmanager/storedform.js';
import { managedFieldsTooMany, storedSizeError } from './objectlimits.js';
import { backoffDelay, type ExponentialBackoff } from '../util/backoff.js';
import { formatTime, systemClock, type Clock } from '../util/clock.js';

/** A namespace as stored, or undefined when there is none of that name. */
export type NamespaceLookup = (namespace: string) => Promise<KubeObject | undefined>;

export interface WriteContext {
  user: UserInfo;
  dryRun: boolean;
  /** Unknown fields: refuse (Strict), warn (Warn, the default) or drop silently (Ignore). */
  fieldValidation?: FieldValidation;
  /** Warnings for the response's `Warning` headers. */
  warnings?: string[];
  /**
   * Who makes the write, as managedFields records it (the request's fieldManager, else its user agent's program);
   * the server's own writes leave it out.
   */
  fieldManager?: string;
  /** Server-side apply: take the fields other managers hold instead of refusing with a conflict. */
  force?: boolean;
  /** Server-side apply that would create the object: refuses unless the requester may also create it. */
  authorizeCreate?: () => Promise<void>;
  /** Set by a server-side apply that created the object. */
  created?: boolean;
  /**
   * Set by a write that removed the object from storage: a delete of an object without finalizers, or an update
   * that removed the last finalizer of an object being deleted. A delete that only marked it leaves this unset.
   */
  deleted?: boolean;
}

export type PatchType = PatchContentType;

const encoder = new TextEncoder();
/** The field manager of the server's own writes (default namespaces, its CRDs and their status). */
const SERVER_MANAGER = 'dkc-server';
const MAX_UPDATE_ATTEMPTS = 16;
/** Between an update's later attempts after conflicts: a random share of 2, 4, … up to 100 ms (< 1 s in all). */
const CONFLICT_BACKOFF: ExponentialBackoff = { initialMs: 2, maxMs: 100, jitter: 1 };
const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether a patch sets or tests metadata.resourceVersion (a precondition), in any of the three patch types. */
export function patchNamesResourceVersion(type: PatchType, patch: unknown): boolean {
  if (type === 'json') {
    return (
      Array.isArray(patch) &&
      patch.some((op) => {
        const path = (op as { path?: unknown })?.path;
        return typeof path === 'string' && /^\/metadata(\/resourceVersion)?$/.test(path);
      })
    );
  }
  const meta = (patch as { metadata?: unknown } | null)?.metadata;
  return meta !== null && typeof meta === 'object' && 'resourceVersion' in meta;
}

/** A JSON, merge or strategic merge patch applied to an object; a bad patch or result is the apiserver's Status. */
export function patchedObject(type: PatchType, current: KubeObject, patch: unknown, kind: string): KubeObject {
  let patched: JsonObject;
  try {
    patched = applyPatch(type, current as unknown as JsonObject, patch, kind);
  } catch (err) {
    if (err instanceof PatchError) {
      throw err.code === 'DKC_PATCH_INVALID' ? errors.badRequest(err.message) : errors.invalidMessage(err.message);
    }
    throw err;
  }
  const obj = patched as unknown as KubeObject;
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj))
    throw errors.badRequest('the patch must produce an object');
  if (!obj.metadata || typeof obj.metadata !== 'object') obj.metadata = {};
  return obj;
}

export function keyPrefix(def: ResourceDef): string {
  return def.custom ? customKeyPrefix(def.group, def.plural) : builtinKeyPrefix(def.group, def.plural);
}

const generateNameAlphabet = 'bcdfghjklmnpqrstvwxz2456789';
function randomSuffix(): string {
  let s = '';
  for (let i = 0; i < 5; i++) s += generateNameAlphabet[Math.floor(Math.random() * generateNameAlphabet.length)];
  return s;
}

interface ContinueToken {
  rv: number;
  start: string;
}

function encodeContinue(t: ContinueToken): string {
  return Buffer.from(JSON.stringify({ v: 'dkc/1', rv: t.rv, start: t.start })).toString('base64url');
}

function decodeContinue(s: string): ContinueToken {
  try {
    const t = JSON.parse(Buffer.from(s, 'base64url').toString('utf8')) as { v?: string; rv?: unknown; start?: unknown };
    if (t.v === 'dkc/1' && typeof t.rv === 'number' && typeof t.start === 'string') return { rv: t.rv, start: t.start };
  } catch {
    // fall through
  }
  throw errors.badRequest(`continue key is not valid: ${s.length > 64 ? s.slice(0, 64) + '…' : s}`);
}

export interface ListOptions {
  selection: Selection;
  limit?: number;
  continueToken?: string;
  /** "0": served from the watch cache (any recent state will do). */
  resourceVersion?: string;
  /** resourceVersionMatch=Exact: the list as it was at this revision. */
  exactRevision?: number;
}

export interface ListResult {
  items: KubeObject[];
  resourceVersion: string;
  continue?: string;
  remainingItemCount?: number;
}

/**
 * A stored custom object as its served version shows it: that version's apiVersion, pruned and defaulted by the
 * schema (which may have changed since the object was written).
 */
export function presentCustom(def: ResourceDef, obj: KubeObject): KubeObject {
  const out: KubeObject = { ...obj, apiVersion: apiVersionOf(def), kind: def.kind, metadata: obj.metadata };
  def.custom?.prune(out);
  def.custom?.applyDefaults(out);
  return out;
}

/** Prunes what the schema does not declare (Strict refuses it), then fills the schema's defaults. */
function checkCustomFields(custom: CustomResourceBehaviour, obj: KubeObject, mode: FieldValidation): string[] {
  const unknown = custom.prune(obj);
  custom.applyDefaults(obj);
  if (unknown.length === 0 || mode === 'Ignore') return [];
  const messages = unknown.map((p) => `unknown field ${JSON.stringify(p)}`);
  if (mode === 'Strict') throw errors.badRequest(`strict decoding error: ${messages.join(', ')}`);
  return messages;
}

/**
 * kube-apiserver's rule for generation: it moves when anything but metadata and status changes, and for a kind whose
 * annotations count (`annotations`) when they change.
 */
function nextGeneration(next: KubeObject, current: KubeObject, annotations = false): number {
  const gen = current.metadata.generation ?? 1;
  const { metadata: _m, status: _s, ...a } = next;
  const { metadata: _cm, status: _cs, ...b } = current;
  const moved =
    !deepEqual(a, b) || (annotations && !deepEqual(next.metadata.annotations, current.metadata.annotations));
  return moved ? gen + 1 : gen;
}

/** An apply found no object to apply to: it creates one. */
class MissingObject extends Error {}

export class ResourceStorage {
  readonly prefix: string;
  readonly qualified: { group: string; name: string };
  readonly kindRef: { group: string; name: string };
  private readonly writes = new KeyQueue();

  constructor(
    readonly def: ResourceDef,
    private readonly store: Store,
    readonly cache: WatchCache,
    private readonly admission: AdmissionPlugin[],
    private readonly namespaceOf: NamespaceLookup,
    /** Wall time, for creationTimestamp, deletionTimestamp and managedFields' times. */
    private readonly clock: Clock = systemClock,
  ) {
    this.prefix = keyPrefix(def);
    this.qualified = { group: def.group, name: def.plural };
    this.kindRef = { group: def.group, name: def.kind };
  }

  key(namespace: string, name: string): string {
    return this.def.namespaced ? `${this.prefix}${namespace}/${name}` : `${this.prefix}${name}`;
  }

  /** Absent or null struct fields become `{}`, as Go's typed decoding and encoding make them. */
  private fillStructs(obj: KubeObject): void {
    for (const f of this.def.structFields ?? []) {
      const v = obj[f];
      if (v === undefined || v === null) obj[f] = {};
    }
  }

  /** The object as this version serves it: one stored through another version of the kind (policy/v1beta1) too. */
  private withType(obj: KubeObject): KubeObject {
    if (this.def.custom) return presentCustom(this.def, obj);
    const typed = { apiVersion: apiVersionOf(this.def), kind: this.def.kind, ...obj, metadata: obj.metadata };
    typed.apiVersion = apiVersionOf(this.def);
    return typed;
  }

  /**
   * An object of the watch cache as served: the cache presented a custom object already (with this schema: a changed
   * CRD mounts a new storage and cache), so presenting it again would only prune and default the cache's own nested
   * values in place.
   */
  private fromCache(obj: KubeObject): KubeObject {
    return this.def.custom ? { ...obj } : this.withType(obj);
  }

  /** `bounded`: refused over the stored-object limit (marking an object deleted never is: it must be able to go). */
  private encode(obj: KubeObject, bounded = true): Uint8Array {
    const { resourceVersion: _rv, ...meta } = obj.metadata;
    const apiVersion = this.def.custom?.storageApiVersion ?? apiVersionOf(this.def);
    const stored = { ...obj, apiVersion, kind: this.def.kind, metadata: meta };
    if (meta.managedFields) meta.managedFields = storedManagedFields(stored) as typeof meta.managedFields;
    const encoded = encoder.encode(JSON.stringify(stored));
    const tooLarge = bounded ? storedSizeError(encoded) : undefined;
    if (tooLarge) throw tooLarge;
    return encoded;
  }

  private validateCreate(obj: KubeObject): FieldError[] {
    return this.def.validation ? this.def.validation.create(obj) : validateCreate(this.def.kind, obj);
  }

  private validateUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
    return this.def.validation ? this.def.validation.update(obj, old) : validateUpdate(this.def.kind, obj, old);
  }

  /** A stored object; `written`, when this process just stored it, is the object it was stored from. */
  private decode(kv: KeyValue, written?: KubeObject): KubeObject {
    return this.withType(decodeObject(kv.value, kv.modRevision, written?.metadata.managedFields));
  }

  private storeError(err: unknown, name: string): StatusError {
    if (err instanceof StatusError) return err;
    if (err instanceof StoreError) {
      switch (err.code) {
        case 'DKC_STORE_KEY_EXISTS':
          return errors.alreadyExists(this.qualified, name);
        case 'DKC_STORE_NOT_FOUND':
          return errors.notFound(this.qualified, name);
        case 'DKC_STORE_CONFLICT':
          return errors.staleResourceVersion(this.qualified, name);
        case 'DKC_STORE_COMPACTED':
          return errors.expired(`The resourceVersion for the provided list is too old.`);
        case 'DKC_STORE_UNAVAILABLE':
          return errors.serviceUnavailable(`storage is unavailable: ${err.message}`);
        default:
          // etcd's own refusal of a write just under the object limit plus its key and the transaction around it.
          if (err.message.includes('etcdserver: request is too large')) return errors.storageRequestTooLarge();
          return errors.internal(err);
      }
    }
    return errors.internal(err);
  }

  /**
   * The object, read from the store; with resourceVersion "0" ("any version"), from the watch cache when it is
   * ready, as kube-apiserver serves it (a kubelet reads its Node so every 10 s).
   */
  async get(namespace: string, name: string, resourceVersion?: string): Promise<KubeObject> {
    if (resourceVersion === '0' && this.cache.isReady) {
      const cached = this.cache.get(this.key(namespace, name));
      if (!cached) throw errors.notFound(this.qualified, name);
      return this.fromCache(cached);
    }
    let kv: KeyValue | undefined;
    try {
      kv = await this.store.get(this.key(namespace, name));
    } catch (err) {
      throw this.storeError(err, name);
    }
    if (!kv) throw errors.notFound(this.qualified, name);
    return this.decode(kv);
  }

  async list(namespace: string, opts: ListOptions): Promise<ListResult> {
    const scope = this.def.namespaced && namespace ? `${this.prefix}${namespace}/` : this.prefix;
    const matches = (o: KubeObject) => opts.selection.matches(o);
    if (opts.resourceVersion === '0' && !opts.continueToken && this.cache.isReady) {
      const items = this.cache
        .snapshot()
        .filter((o) => !this.def.namespaced || !namespace || o.metadata.namespace === namespace)
        .filter(matches)
        .sort((a, b) =>
          this.key(a.metadata.namespace ?? '', a.metadata.name ?? '') <
          this.key(b.metadata.namespace ?? '', b.metadata.name ?? '')
            ? -1
            : 1,
        )
        .map((o) => this.fromCache(o));
      return { items, resourceVersion: String(this.cache.currentRevision) };
    }
    const limit = opts.limit && opts.limit > 0 ? opts.limit : 0;
    let revision = opts.exactRevision ?? 0;
    let startAfter: string | undefined;
    if (opts.continueToken) {
      const t = decodeContinue(opts.continueToken);
      revision = t.rv;
      startAfter = t.start;
    }
    const items: KubeObject[] = [];
    let lastKey = '';
    let more = false;
    // A selection pinned to one name reads that one key, as kube's registry does (a non-recursive GetList on the
    // key): each node agent lists its own Node this way, and reading all N Nodes for it made registration O(N²).
    const single =
      opts.continueToken || (this.def.namespaced && !namespace) || opts.selection.name === undefined
        ? undefined
        : this.key(namespace, opts.selection.name);
    try {
      if (single !== undefined) {
        // The key is the first one with itself as prefix; a longer key is another object's name.
        const res = await this.store.list(single, { limit: 1, ...(revision ? { revision } : {}) });
        revision = res.revision;
        const kv = res.items[0];
        const obj = kv?.key === single ? this.decode(kv) : undefined;
        if (obj && matches(obj)) items.push(obj);
      }
      // Selectors filter after reading, so keep reading pages until the page is full or the keys run out.
      for (let page = 0; single === undefined && page < 1_000_000; page++) {
        const res = await this.store.list(scope, {
          ...(limit ? { limit: Math.max(limit - items.length, Math.min(limit * 2, 500)) } : {}),
          ...(startAfter !== undefined ? { startAfter } : {}),
          ...(revision ? { revision } : {}),
        });
        revision = res.revision;
        more = false;
        for (let i = 0; i < res.items.length; i++) {
          const kv = res.items[i]!;
          lastKey = kv.key;
          const obj = this.decode(kv);
          if (matches(obj)) items.push(obj);
          if (limit && items.length >= limit) {
            more = i < res.items.length - 1 || res.more;
            break;
          }
        }
        if (limit && items.length >= limit) break;
        if (!res.more || res.items.length === 0) break;
        startAfter = lastKey;
      }
    } catch (err) {
      if (err instanceof StoreError && err.code === 'DKC_STORE_COMPACTED') {
        throw errors.expired(
          'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
        );
      }
      throw this.storeError(err, '');
    }
    const result: ListResult = { items, resourceVersion: String(revision) };
    if (more) result.continue = encodeContinue({ rv: revision, start: lastKey });
    return result;
  }

  private checkTypeMeta(obj: KubeObject): void {
    const apiVersion = apiVersionOf(this.def);
    if (obj.kind !== undefined && obj.kind !== '' && obj.kind !== this.def.kind) {
      throw errors.badRequest(
        `the API version in the data (${obj.apiVersion ?? ''}) does not match the expected API version (${apiVersion}) or the kind in the data (${obj.kind}) does not match the expected kind (${this.def.kind})`,
      );
    }
    if (obj.apiVersion !== undefined && obj.apiVersion !== '' && obj.apiVersion !== apiVersion) {
      throw errors.badRequest(
        `the API version in the data (${obj.apiVersion}) does not match the expected API version (${apiVersion})`,
      );
    }
  }

  private checkFields(obj: KubeObject, ctx: WriteContext, subresource = ''): void {
    // The kind's own warnings (deprecated fields) are about the main resource: a status write does not repeat them. A
    // release's strategy gives its own, for the object as it will be stored (applyStrategy).
    const own = subresource === '' && !this.def.custom && !this.def.strategy ? warningsFor(this.def.kind, obj) : [];
    const unknown = this.def.custom
      ? checkCustomFields(this.def.custom, obj, ctx.fieldValidation ?? 'Warn')
      : checkFields(this.def.group, this.def.kind, obj, ctx.fieldValidation ?? 'Warn', this.def.version);
    const warnings = [...unknown, ...own];
    if (warnings.length) (ctx.warnings ??= []).push(...warnings);
  }

  /**
   * The emulated release's resets (a Node's fields it no longer keeps), with its warnings for the main resource on the
   * first attempt. Returns the object as requested, for admission, when there is a strategy.
   */
  private applyStrategy(
    obj: KubeObject,
    old: KubeObject | undefined,
    subresource: string,
    ctx: WriteContext,
    first: boolean,
  ): KubeObject | undefined {
    const strategy = this.def.strategy;
    if (!strategy) return undefined;
    const requested = structuredClone(obj);
    strategy.prepare(obj, old, subresource);
    if (first && subresource === '') (ctx.warnings ??= []).push(...strategy.warnings(obj));
    return requested;
  }

  /** Unknown fields dropped silently (a retried update, whose first attempt already reported them). */
  private dropUnknownFields(obj: KubeObject): void {
    if (this.def.custom) checkCustomFields(this.def.custom, obj, 'Ignore');
    else checkFields(this.def.group, this.def.kind, obj, 'Ignore', this.def.version);
  }

  /**
   * The NamespaceLifecycle admission plugin's part of a create, which kube-apiserver runs before validation: the
   * namespace must exist and must not be Terminating.
   */
  private async admitToNamespace(namespace: string, name: string): Promise<void> {
    if (!this.def.namespaced) return;
    const ns = await this.namespaceOf(namespace);
    if (!ns) throw errors.notFound({ group: '', name: 'namespaces' }, namespace);
    const refused = refuseCreateInTerminating(this.qualified, name, namespace, ns);
    if (refused) throw refused;
  }

  async create(namespace: string, input: KubeObject, ctx: WriteContext): Promise<KubeObject> {
    return this.createObject(namespace, input, ctx);
  }

  /** `applied`: the managedFields a server-side apply worked out (else the create's own are recorded). */
  private async createObject(
    namespace: string,
    input: KubeObject,
    ctx: WriteContext,
    applied?: { managedFields: ManagedFieldsEntry[] | undefined },
  ): Promise<KubeObject> {
    if (!this.def.verbs.includes('create')) throw errors.methodNotAllowed('create', this.def.kind);
    this.checkTypeMeta(input);
    const meta = { ...(input.metadata ?? {}) };
    if (this.def.namespaced) {
      if (meta.namespace && meta.namespace !== namespace) {
        throw errors.badRequest(
          'the namespace of the provided object does not match the namespace sent on the request',
        );
      }
      meta.namespace = namespace;
    } else {
      delete meta.namespace;
    }
    if (meta.resourceVersion) throw errors.badRequest('resourceVersion should not be set on objects to be created');
    const obj: KubeObject = { ...input, apiVersion: apiVersionOf(this.def), kind: this.def.kind, metadata: meta };
    this.checkFields(obj, ctx);
    const tooMany = managedFieldsTooMany(meta.managedFields, undefined);
    if (tooMany) throw errors.invalid(this.kindRef, meta.name ?? '', [tooMany]);
    const managedFields = applied
      ? applied.managedFields
      : fieldManagerFor(this.def, this.clock).update(undefined, obj, ctx.fieldManager ?? SERVER_MANAGER, '');
    if (managedFields) meta.managedFields = managedFields;
    else delete meta.managedFields;
    const requested = this.applyStrategy(obj, undefined, '', ctx, true);
    await this.admitToNamespace(namespace, meta.name ?? '');
    const generate = !meta.name && !!meta.generateName;
    for (let attempt = 0; attempt < 8; attempt++) {
      if (generate) meta.name = `${meta.generateName}${randomSuffix()}`;
      meta.uid = randomUUID();
      meta.creationTimestamp = formatTime(this.clock.now());
      delete meta.deletionTimestamp;
      if (this.def.generation) meta.generation = 1;
      this.def.prepareForCreate?.(obj);
      this.fillStructs(obj);
      const errs = this.validateCreate(obj);
      if (errs.length) throw errors.invalid(this.kindRef, meta.name ?? '', errs);
      await runAdmission(this.admission, {
        user: ctx.user,
        operation: 'CREATE',
        resource: this.def,
        subresource: '',
        namespace: meta.namespace ?? '',
        name: meta.name ?? '',
        object: obj,
        ...(requested ? { requested } : {}),
        dryRun: ctx.dryRun,
        warnings: (ctx.warnings ??= []),
      });
      const key = this.key(namespace, meta.name!);
      if (ctx.dryRun) {
        if (await this.store.get(key).catch((e) => Promise.reject(this.storeError(e, meta.name!)))) {
          throw errors.alreadyExists(this.qualified, meta.name!);
        }
        return obj;
      }
      try {
        const kv = await this.store.create(key, this.encode(obj));
        return this.decode(kv, obj);
      } catch (err) {
        if (generate && err instanceof StoreError && err.code === 'DKC_STORE_KEY_EXISTS') continue;
        throw this.storeError(err, meta.name!);
      }
    }
    throw errors.alreadyExists(this.qualified, meta.name ?? '');
  }

  /**
   * Read-modify-write with optimistic concurrency (kube-apiserver's GuaranteedUpdate): `mutate` turns the current
   * object into the desired one; a concurrent write makes us retry unless the caller pinned a resourceVersion.
   */
  private async guaranteedUpdate(
    namespace: string,
    name: string,
    subresource: string,
    ctx: WriteContext,
    mutate: (current: KubeObject) => KubeObject,
    applied = false,
  ): Promise<KubeObject> {
    const key = this.key(namespace, name);
    return this.writes.run(key, () => this.updateLoop(key, namespace, name, subresource, ctx, mutate, applied));
  }

  /** `applied`: `mutate` is a server-side apply, whose result already carries its managedFields. */
  private async updateLoop(
    key: string,
    namespace: string,
    name: string,
    subresource: string,
    ctx: WriteContext,
    mutate: (current: KubeObject) => KubeObject,
    applied: boolean,
  ): Promise<KubeObject> {
    for (let attempt = 0; attempt < MAX_UPDATE_ATTEMPTS; attempt++) {
      // Writers that lost the same race twice spread out instead of meeting again at once (a hot object written
      // through several replicas); the first retry is immediate, as kube-apiserver's.
      if (attempt > 1) await pause(backoffDelay(CONFLICT_BACKOFF, attempt - 1));
      let kv: KeyValue | undefined;
      try {
        kv = await this.store.get(key);
      } catch (err) {
        throw this.storeError(err, name);
      }
      if (!kv) throw applied && !subresource ? new MissingObject() : errors.notFound(this.qualified, name);
      const current = this.decode(kv);
      const desired = mutate(current);
      this.checkTypeMeta(desired);
      if (attempt === 0) this.checkFields(desired, ctx, subresource);
      else this.dropUnknownFields(desired);
      const pinned = desired.metadata?.resourceVersion;
      if (pinned && pinned !== String(kv.modRevision)) throw errors.staleResourceVersion(this.qualified, name);
      const tooMany = managedFieldsTooMany(desired.metadata?.managedFields, current.metadata.managedFields);
      if (tooMany) throw errors.invalid(this.kindRef, name, [tooMany]);
      const managedFields = applied
        ? desired.metadata.managedFields
        : fieldManagerFor(this.def, this.clock).update(
            current,
            desired,
            ctx.fieldManager ?? SERVER_MANAGER,
            subresource,
          );
      const next = this.prepareForUpdate(desired, current, subresource);
      if (managedFields) next.metadata.managedFields = managedFields;
      else delete next.metadata.managedFields;
      const requested = this.applyStrategy(next, current, subresource, ctx, attempt === 0);
      const errs = this.validateUpdate(next, current);
      if (errs.length) throw errors.invalid(this.kindRef, name, errs);
      await runAdmission(this.admission, {
        user: ctx.user,
        operation: 'UPDATE',
        resource: this.def,
        subresource,
        namespace,
        name,
        object: next,
        ...(requested ? { requested } : {}),
        oldObject: current,
        dryRun: ctx.dryRun,
        warnings: (ctx.warnings ??= []),
      });
      if (deletedByUpdate(next, current) && (this.def.deletion?.mayGoByUpdate(next) ?? true)) {
        // Its last finalizer removed: the object goes, and the answer is the object as it was stored.
        if (ctx.dryRun) return current;
        try {
          const deleted = await this.store.delete(key, kv.modRevision);
          ctx.deleted = true;
          return this.withType(decodeObject(deleted.value, deleted.modRevision));
        } catch (err) {
          if (err instanceof StoreError && err.code === 'DKC_STORE_CONFLICT' && !pinned) continue;
          if (err instanceof StoreError && err.code === 'DKC_STORE_NOT_FOUND')
            throw errors.notFound(this.qualified, name);
          throw this.storeError(err, name);
        }
      }
      if (deepEqual(next, current)) return current;
      if (ctx.dryRun) return next;
      try {
        const written = await this.store.update(key, this.encode(next), kv.modRevision);
        return this.decode(written, next);
      } catch (err) {
        if (err instanceof StoreError && err.code === 'DKC_STORE_CONFLICT' && !pinned) continue;
        if (err instanceof StoreError && err.code === 'DKC_STORE_NOT_FOUND')
          throw errors.notFound(this.qualified, name);
        throw this.storeError(err, name);
      }
    }
    throw errors.conflict(this.qualified, name, 'too many concurrent updates; please try again');
  }

  /** The fields a write may change: status only through /status, everything but status through the main resource. */
  private prepareForUpdate(desired: KubeObject, current: KubeObject, subresource: string): KubeObject {
    const meta = { ...(desired.metadata ?? {}) };
    const curMeta = current.metadata;
    let next: KubeObject;
    if (subresource === 'status') {
      next = { ...current, status: desired['status'] };
      if (desired['status'] === undefined) delete next['status'];
      next.metadata = { ...curMeta };
    } else {
      next = { ...desired, metadata: meta };
      if (this.def.statusSubresource) {
        if (current['status'] === undefined) delete next['status'];
        else next['status'] = current['status'];
      }
      // System-owned metadata is carried over; a client that omits it changes nothing.
      if (!meta.uid && curMeta.uid !== undefined) meta.uid = curMeta.uid;
      if (curMeta.creationTimestamp !== undefined) meta.creationTimestamp = curMeta.creationTimestamp;
      else delete meta.creationTimestamp;
      if (curMeta.deletionTimestamp) meta.deletionTimestamp = curMeta.deletionTimestamp;
      const grace = curMeta.deletionGracePeriodSeconds;
      if (
        grace !== undefined &&
        grace !== null &&
        (meta.deletionGracePeriodSeconds === undefined || meta.deletionGracePeriodSeconds === null)
      ) {
        meta.deletionGracePeriodSeconds = grace;
      }
      const namespace = this.def.namespaced ? meta.namespace || curMeta.namespace : undefined;
      if (namespace !== undefined) meta.namespace = namespace;
      else delete meta.namespace;
      if (!meta.name && curMeta.name !== undefined) meta.name = curMeta.name;
    }
    next.apiVersion = apiVersionOf(this.def);
    next.kind = this.def.kind;
    this.def.prepareForUpdate?.(next, current, subresource);
    this.fillStructs(next);
    if (curMeta.resourceVersion !== undefined) next.metadata.resourceVersion = curMeta.resourceVersion;
    else delete next.metadata.resourceVersion;
    if (this.def.generation)
      next.metadata.generation = nextGeneration(next, current, this.def.annotationsMoveGeneration === true);
    return next;
  }

  /**
   * A registry-internal read-modify-write, as kube's subresource handlers call the storage's GuaranteedUpdate
   * directly (a Pod's binding, its DisruptionTarget condition): no strategy, validation, admission or managedFields;
   * `mutate` refuses by throwing. Retried on a concurrent write.
   */
  async transform(
    namespace: string,
    name: string,
    ctx: WriteContext,
    mutate: (current: KubeObject) => KubeObject,
  ): Promise<KubeObject> {
    const key = this.key(namespace, name);
    return this.writes.run(key, async () => {
      for (let attempt = 0; attempt < MAX_UPDATE_ATTEMPTS; attempt++) {
        if (attempt > 1) await pause(backoffDelay(CONFLICT_BACKOFF, attempt - 1));
        const kv = await this.store.get(key).catch((e: unknown) => Promise.reject(this.storeError(e, name)));
        if (!kv) throw errors.notFound(this.qualified, name);
        const current = this.decode(kv);
        const next = mutate(structuredClone(current));
        if (ctx.dryRun || deepEqual(next, current)) return next;
        try {
          return this.decode(await this.store.update(key, this.encode(next), kv.modRevision), next);
        } catch (err) {
          if (err instanceof StoreError && err.code === 'DKC_STORE_CONFLICT') continue;
          throw this.storeError(err, name);
        }
      }
      throw errors.conflict(this.qualified, name, 'too many concurrent updates; please try again');
    });
  }

  /**
   * A write of the main object computed from the stored one through the whole update path (strategy, validation,
   * admission, managedFields under `subresource`): how a `scale` write reaches spec.replicas.
   */
  async updateFrom(
    namespace: string,
    name: string,
    subresource: string,
    ctx: WriteContext,
    mutate: (current: KubeObject) => KubeObject,
  ): Promise<KubeObject> {
    if (!this.def.verbs.includes('update')) throw errors.methodNotAllowed('update', this.def.kind);
    return this.guaranteedUpdate(namespace, name, subresource, ctx, mutate);
  }

  async update(
    namespace: string,
    name: string,
    input: KubeObject,
    subresource: string,
    ctx: WriteContext,
  ): Promise<KubeObject> {
    if (!this.def.verbs.includes('update')) throw errors.methodNotAllowed('update', this.def.kind);
    const bodyName = input.metadata?.name;
    if (bodyName && bodyName !== name) {
      throw errors.badRequest(`the name of the object (${bodyName}) does not match the name on the URL (${name})`);
    }
    if (this.def.namespaced && input.metadata?.namespace && input.metadata.namespace !== namespace) {
      throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    return this.guaranteedUpdate(namespace, name, subresource, ctx, () => {
      const copy = structuredClone(input);
      copy.metadata = { ...(copy.metadata ?? {}), name };
      return copy;
    });
  }

  async patch(
    namespace: string,
    name: string,
    type: PatchType,
    patch: unknown,
    subresource: string,
    ctx: WriteContext,
  ): Promise<KubeObject> {
    if (!this.def.verbs.includes('patch')) throw errors.methodNotAllowed('patch', this.def.kind);
    // The handler refuses what the endpoint does not accept; callers inside the server are held to the same.
    if (!acceptedPatchTypes(this.def.custom !== undefined).includes(type)) {
      throw errors.unsupportedMediaTypeFor(type, acceptedPatchMediaTypes(this.def.custom !== undefined));
    }
    if (type === 'apply') return this.apply(namespace, name, patch as KubeObject, subresource, ctx);
    // As kube-apiserver: a patch that names no resourceVersion is applied again to the fresh object when a concurrent
    // write wins the race; one that names it is a precondition, and a stale one is a 409.
    const pinned = patchNamesResourceVersion(type, patch);
    return this.guaranteedUpdate(namespace, name, subresource, ctx, (current) => {
      const obj = patchedObject(type, current, patch, this.def.kind);
      // As kube-apiserver's checkName: a patch that removes the name (a root "$patch: delete" empties the object)
      // is refused, not stored as an emptied object.
      const patchedName = obj.metadata.name ?? '';
      if (patchedName !== name) {
        throw errors.badRequest(
          `the name of the object (${String(patchedName)}) does not match the name on the URL (${name})`,
        );
      }
      obj.metadata.name = name;
      if (!pinned) delete obj.metadata.resourceVersion;
      return obj;
    });
  }

  /**
   * Server-side apply of `config` by ctx.fieldManager: merged into the stored object by the managers' field sets, or
   * creating the object when it does not exist (not through a subresource; the requester must be allowed to create).
   */
  private async apply(
    namespace: string,
    name: string,
    config: KubeObject,
    subresource: string,
    ctx: WriteContext,
  ): Promise<KubeObject> {
    const fm = fieldManagerFor(this.def, this.clock);
    const manager = ctx.fieldManager ?? SERVER_MANAGER;
    const pinned = patchNamesResourceVersion('apply', config);
    const applyTo = (current: KubeObject | undefined): KubeObject => {
      try {
        return fm.apply(current, config, manager, ctx.force === true, subresource);
      } catch (err) {
        if (!(err instanceof ApplyError)) throw err;
        if (err.code === 409)
          throw errors.applyConflict(
            err.message,
            err.causes.map((c) => ({
              reason: 'FieldManagerConflict',
              message: `conflict with ${c.manager}`,
              field: c.field,
            })),
          );
        throw err.code === 400 ? errors.badRequest(err.message) : errors.unknown(err.message);
      }
    };
    for (let attempt = 0; attempt < MAX_UPDATE_ATTEMPTS; attempt++) {
      try {
        return await this.guaranteedUpdate(
          namespace,
          name,
          subresource,
          ctx,
          (current) => {
            const obj = applyTo(current);
            const objName = obj.metadata?.name ?? '';
            if (objName !== name) throw errors.badRequest(applyText.nameMismatch(String(objName), name));
            if (!pinned) delete obj.metadata.resourceVersion;
            return obj;
          },
          true,
        );
      } catch (err) {
        if (!(err instanceof MissingObject)) throw err;
      }
      const obj = applyTo(undefined);
      const meta = obj.metadata;
      if (meta.uid) throw errors.conflict(this.qualified, name, applyText.uidMismatch(meta.uid));
      delete meta.creationTimestamp;
      delete meta.deletionTimestamp;
      delete meta.deletionGracePeriodSeconds;
      delete meta.selfLink;
      if ((meta.name ?? '') !== name) throw errors.badRequest(applyText.nameMismatch(meta.name ?? '', name));
      await ctx.authorizeCreate?.();
      try {
        const created = await this.createObject(namespace, obj, ctx, {
          managedFields: meta.managedFields as ManagedFieldsEntry[] | undefined,
        });
        ctx.created = true;
        return created;
      } catch (err) {
        // Created by someone else meanwhile: apply to theirs.
        if (err instanceof StatusError && err.code === 409 && err.reason === 'AlreadyExists') continue;
        throw err;
      }
    }
    throw errors.conflict(this.qualified, name, 'too many concurrent updates; please try again');
  }

  /**
   * kube-apiserver's Store.Delete for kinds without graceful deletion: preconditions checked, admission asked, then the
   * finalizers the options call for (`orphan`, `foregroundDeletion`) set; an object left with finalizers is marked
   * (deletionTimestamp) and kept, any other is removed.
   */
  async delete(namespace: string, name: string, options: DeleteOptions, ctx: WriteContext): Promise<KubeObject> {
    if (!this.def.verbs.includes('delete')) throw errors.methodNotAllowed('delete', this.def.kind);
    const why = this.def.undeletable?.[name];
    if (why) throw errors.forbidden(this.qualified, name, why);
    const key = this.key(namespace, name);
    for (let attempt = 0; attempt < MAX_UPDATE_ATTEMPTS; attempt++) {
      let kv: KeyValue | undefined;
      try {
        kv = await this.store.get(key);
      } catch (err) {
        throw this.storeError(err, name);
      }
      if (!kv) throw errors.notFound(this.qualified, name);
      const current = this.decode(kv);
      const failed = preconditionFailure(options, current.metadata);
      if (failed !== undefined) throw errors.conflict(this.kindRef, name, failed);
      await runAdmission(this.admission, {
        user: ctx.user,
        operation: 'DELETE',
        resource: this.def,
        subresource: '',
        namespace,
        name,
        oldObject: current,
        dryRun: ctx.dryRun,
        warnings: (ctx.warnings ??= []),
      });
      const finalizers = finalizersForDelete(current.metadata.finalizers ?? [], options);
      const held = finalizers === undefined ? current : { ...current, metadata: { ...current.metadata, finalizers } };
      if (finalizers !== undefined && finalizers.length === 0) delete held.metadata.finalizers;
      const now = formatTime(this.clock.now());
      // A kind's own rule first (a namespace's first delete turns it Terminating; a later one waits for spec.finalizers;
      // a bound Pod is given its grace period).
      const own = this.def.deletion?.onDelete(held, now, options);
      if (own && 'keep' in own) return current;
      const marked = own ? own.store : pendingFinalizers(held) ? markDeleting(held, now) : undefined;
      if (marked) {
        // Finalizers pending: marked, kept until the last is removed (a repeated delete changes nothing).
        if (ctx.dryRun || deepEqual(marked, current)) return marked;
        try {
          return this.decode(await this.store.update(key, this.encode(marked, false), kv.modRevision), marked);
        } catch (err) {
          if (err instanceof StoreError && err.code === 'DKC_STORE_CONFLICT') continue;
          if (err instanceof StoreError && err.code === 'DKC_STORE_NOT_FOUND')
            throw errors.notFound(this.qualified, name);
          throw this.storeError(err, name);
        }
      }
      if (ctx.dryRun) return current;
      try {
        const deleted = await this.store.delete(key, kv.modRevision);
        ctx.deleted = true;
        return this.withType(decodeObject(deleted.value, deleted.modRevision));
      } catch (err) {
        if (err instanceof StoreError && err.code === 'DKC_STORE_CONFLICT') continue;
        throw this.storeError(err, name);
      }
    }
    throw errors.conflict(this.qualified, name, 'too many concurrent updates; please try again');
  }

  /** Delete every object in scope that matches; returns the deleted objects. */
  async deleteCollection(
    namespace: string,
    selection: Selection,
    options: DeleteOptions,
    ctx: WriteContext,
  ): Promise<KubeObject[]> {
    if (!this.def.verbs.includes('deletecollection')) throw errors.methodNotAllowed('deletecollection', this.def.kind);
    const { items } = await this.list(namespace, { selection });
    const deleted: KubeObject[] = [];
    for (const o of items) {
      try {
        deleted.push(await this.delete(o.metadata.namespace ?? '', o.metadata.name ?? '', options, ctx));
      } catch (err) {
        if (err instanceof StatusError && err.code === 404) continue;
        throw err;
      }
    }
    return deleted;
  }
}
