// The field manager of one served kind: what kube-apiserver's managedfields.FieldManager does around
// structured-merge-diff, in the same order of steps —
//   apply:  the applied object's kind checked; kubectl's last-applied annotation kept in step (manager "kubectl");
//           conflicts with what that annotation says kubectl set client-side forgiven (manager "kubectl"); an object
//           no one manages yet gets its fields recorded for "before-first-apply"; the merge; the timestamp;
//   update: managedFields taken from the request when it sends valid ones (an empty list, or one empty entry,
//           resets them), else from the stored object; an object no one manages stays unmanaged unless created;
//           the writer's fields; at most ten update managers (the oldest merged into "ancient-changes").
// Both leave out the fields no manager owns (apiVersion, kind, metadata.name and the other system fields) and, for
// a status write, every field but status (for a write of the main resource of a kind with a status subresource,
// status).

import { deepEqual } from '../../api/equal.js';
import type { KubeObject } from '../../api/types.js';
import { difference, emptySet, isEmptySet, paths, union, type FieldSet } from './fieldset.js';
import { fieldElement, pathString } from './pathelement.js';
import {
  decodeManagedFields,
  dropEmpty,
  emptyManaged,
  encodeManagedFields,
  isResetManagedFields,
  ManagedFieldsError,
  managerIdentifier,
  parseIdentifier,
  type Managed,
  type ManagedFieldsEntry,
} from './managed.js';
import type { Clock } from '../../util/clock.js';
import { applyText, printManager } from './messages.js';
import { compare, toFieldSet, TypedValueError } from './typed.js';
import type { SsaType } from './types.js';
import { Conflicts, recordApply, recordUpdate, type UpdaterContext } from './updater.js';
import { formatTime } from '../../util/clock.js';

export const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';
/** kubectl apply --server-side's default manager; the last-applied annotation follows its applies. */
const KUBECTL = 'kubectl';
const BEFORE_FIRST_APPLY = 'before-first-apply';
const ANCIENT_CHANGES = 'ancient-changes';
const MAX_UPDATE_MANAGERS = 10;

type JsonObject = Record<string, unknown>;

/** Fields no manager owns (upstream's stripMeta set). */
const STRIPPED: FieldSet = {
  'f:apiVersion': {},
  'f:kind': {},
  'f:metadata': {
    '.': {},
    'f:name': {},
    'f:namespace': {},
    'f:creationTimestamp': {},
    'f:selfLink': {},
    'f:uid': {},
    'f:clusterName': {},
    'f:generation': {},
    'f:managedFields': {},
    'f:resourceVersion': {},
  },
};

/** Why an apply failed, with the HTTP status kube-apiserver answers it with. */
export class ApplyError extends Error {
  override readonly name = 'ApplyError';
  constructor(
    readonly code: 400 | 409 | 500,
    message: string,
    /** For 409: each conflicting field and who holds it. */
    readonly causes: { manager: string; field: string }[] = [],
  ) {
    super(message);
  }
}

export interface FieldManagerConfig {
  readonly type: SsaType;
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  /** Writes to the main resource leave status alone; status writes leave everything else. */
  readonly statusSubresource: boolean;
  /** The object a create starts from (the kind's empty object, as Go would write it). */
  readonly emptyObject: () => JsonObject;
  /** Stamps managedFields' times (wall side). */
  readonly clock: Clock;
}

function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

let lastSecond = NaN;
let lastText = '';

/** RFC 3339 at second precision (metav1.Time), worked out once per second. */
function secondPrecision(d: Date): string {
  const second = Math.floor(d.getTime() / 1000);
  if (second !== lastSecond) {
    lastSecond = second;
    lastText = formatTime(d);
  }
  return lastText;
}

function cloneManaged(m: Managed): Managed {
  return { fields: new Map(m.fields), times: new Map(m.times), ...(m.stored ? { stored: m.stored } : {}) };
}

/** The object without metadata.managedFields (a shallow copy where it had them). */
function withoutManagedFields(obj: JsonObject): JsonObject {
  const meta = obj['metadata'];
  if (!isObject(meta) || !Object.hasOwn(meta, 'managedFields')) return obj;
  const { managedFields: _m, ...rest } = meta;
  return { ...obj, metadata: rest };
}

/** A value as Go's encoding/json writes a map (keys sorted), for the last-applied annotation. */
function goJsonSorted(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(goJsonSorted).join(',')}]`;
  if (isObject(v)) {
    const keys = Object.keys(v)
      .filter((k) => v[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${goJsonStringOf(k)}:${goJsonSorted(v[k])}`).join(',')}}`;
  }
  if (typeof v === 'string') return goJsonStringOf(v);
  return JSON.stringify(v ?? null);
}

function goJsonStringOf(s: string): string {
  return JSON.stringify(s).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

export class FieldManager {
  constructor(private readonly config: FieldManagerConfig) {}

  private get apiVersion(): string {
    return this.config.group ? `${this.config.group}/${this.config.version}` : this.config.version;
  }

  private context(subresource: string, ...objects: JsonObject[]): UpdaterContext {
    return { type: this.config.type, apiVersion: this.apiVersion, ignored: this.ignored(subresource, objects) };
  }

  /** The fields a write through `subresource` has no say over (kube's reset fields of the strategy). */
  private ignored(subresource: string, objects: JsonObject[]): FieldSet {
    if (subresource === 'status') {
      const out: FieldSet = {};
      for (const o of objects) for (const k of Object.keys(o)) if (k !== 'status') out[fieldElement(k)] = {};
      return out;
    }
    return this.config.statusSubresource ? { 'f:status': {} } : emptySet();
  }

  private empty(): JsonObject {
    return this.config.emptyObject();
  }

  // ---- updates ----------------------------------------------------------------------------------------------

  /**
   * The managedFields after a create (`live` undefined) or an update by `manager` that turns `live` into `next`
   * (the object as the request would have it, before the server's own changes). Never fails: on any error the
   * stored object's managedFields stay (upstream's UpdateNoErrors).
   */
  update(
    live: KubeObject | undefined,
    next: KubeObject,
    manager: string,
    subresource: string,
  ): ManagedFieldsEntry[] | undefined {
    const liveObj = live ?? this.empty();
    try {
      const managed = this.decodeLiveOrNew(liveObj, next, subresource !== '');
      if (managed.fields.size === 0 && live !== undefined) return undefined;
      this.recordUpdate(liveObj, next, managed, manager, subresource);
      return encodeManagedFields(managed);
    } catch {
      return live?.metadata.managedFields as ManagedFieldsEntry[] | undefined;
    }
  }

  private decodeLiveOrNew(live: JsonObject, next: JsonObject, ignoreNew: boolean): Managed {
    const liveFields = () => {
      try {
        return decodeManagedFields((live['metadata'] as KubeObject['metadata'] | undefined)?.managedFields, true);
      } catch {
        return emptyManaged();
      }
    };
    if (ignoreNew) return liveFields();
    const requested = (next['metadata'] as KubeObject['metadata'] | undefined)?.managedFields;
    if (isResetManagedFields(requested)) return emptyManaged();
    // A client that read the object and writes it back sends the stored managedFields (an agent renewing its Lease).
    if (
      requested === undefined ||
      deepEqual(requested, (live['metadata'] as KubeObject['metadata'] | undefined)?.managedFields)
    )
      return liveFields();
    try {
      const m = decodeManagedFields(requested, false);
      if (m.fields.size > 0) return m;
    } catch (err) {
      if (!(err instanceof ManagedFieldsError)) throw err;
    }
    return liveFields();
  }

  /** An update's steps below the decision whether to track it: record (system fields left out), time, cap. */
  private recordUpdate(
    live: JsonObject,
    next: JsonObject,
    managed: Managed,
    manager: string,
    subresource: string,
  ): void {
    const id = managerIdentifier({
      manager: manager || 'unknown',
      operation: 'Update',
      apiVersion: this.apiVersion,
      ...(subresource ? { subresource } : {}),
    });
    const cx = this.context(subresource, live, next);
    if (recordUpdate(cx, withoutManagedFields(live), withoutManagedFields(next), managed, id, STRIPPED)) {
      managed.times.set(id, secondPrecision(this.config.clock.now()));
    }
    dropEmpty(managed);
    this.capUpdateManagers(managed);
  }

  private strip(managed: Managed, id: string): void {
    const vs = managed.fields.get(id);
    if (!vs) return;
    const set = difference(vs.set, STRIPPED);
    if (isEmptySet(set)) managed.fields.delete(id);
    else if (set !== vs.set) managed.fields.set(id, { ...vs, set });
  }

  private capUpdateManagers(managed: Managed): void {
    const updaters = [...managed.fields].filter(([, vs]) => !vs.applied).map(([id]) => id);
    if (updaters.length <= MAX_UPDATE_MANAGERS) return;
    const secs = (id: string) => {
      const t = managed.times.get(id);
      return t ? Math.floor(Date.parse(t) / 1000) : 0;
    };
    updaters.sort((a, b) => secs(a) - secs(b) || (a < b ? -1 : a > b ? 1 : 0));
    const firstOfVersion = new Map<string, string>();
    let length = updaters.length;
    for (let i = 0; i < updaters.length && length > MAX_UPDATE_MANAGERS; i++) {
      const id = updaters[i]!;
      const vs = managed.fields.get(id)!;
      const time = managed.times.get(id);
      const bucket = managerIdentifier({ manager: ANCIENT_CHANGES, operation: 'Update', apiVersion: vs.apiVersion });
      const first = firstOfVersion.get(vs.apiVersion);
      if (first === undefined) {
        firstOfVersion.set(vs.apiVersion, id);
        continue;
      }
      if (!managed.fields.has(bucket)) {
        managed.fields.set(bucket, managed.fields.get(first)!);
        managed.fields.delete(first);
      }
      managed.fields.set(bucket, {
        set: union(vs.set, managed.fields.get(bucket)!.set),
        apiVersion: vs.apiVersion,
        applied: false,
      });
      managed.fields.delete(id);
      length--;
      managed.times.set(bucket, time);
    }
  }

  // ---- applies ----------------------------------------------------------------------------------------------

  /**
   * The object after `manager` applies `config` to `live` (undefined: the object does not exist yet), with its
   * managedFields; undefined object fields mean nothing but managedFields changed. Throws ApplyError.
   */
  apply(
    live: KubeObject | undefined,
    config: JsonObject,
    manager: string,
    force: boolean,
    subresource: string,
  ): KubeObject {
    this.checkKind(config);
    const liveObj = live ?? this.empty();
    let managed: Managed;
    try {
      managed = decodeManagedFields((liveObj['metadata'] as KubeObject['metadata'] | undefined)?.managedFields, true);
    } catch (err) {
      throw new ApplyError(500, applyText.decodeManaged((err as Error).message));
    }
    const result = this.applyForgivingLastApplied(liveObj, config, managed, manager, force, subresource);
    const object = result.object;
    if (manager === KUBECTL && this.hasLastApplied(object)) this.setLastApplied(object, config);
    const metadata = isObject(object['metadata']) ? { ...object['metadata'] } : {};
    const entries = encodeManagedFields(result.managed);
    if (entries) metadata['managedFields'] = entries;
    else delete metadata['managedFields'];
    return { ...object, metadata };
  }

  private checkKind(config: JsonObject): void {
    const apiVersion = typeof config['apiVersion'] === 'string' ? config['apiVersion'] : '';
    const kind = typeof config['kind'] === 'string' ? config['kind'] : '';
    if (apiVersion === this.apiVersion && kind === this.config.kind) return;
    const parts = apiVersion.split('/');
    const [group, version] =
      parts.length === 1 ? ['', parts[0]!] : parts.length === 2 ? [parts[0]!, parts[1]!] : ['', ''];
    throw new ApplyError(400, applyText.invalidObjectType(`${group}/${version}, Kind=${kind}`));
  }

  /** kubectl's own applies may take what its client-side applies set, as the last-applied annotation records it. */
  private applyForgivingLastApplied(
    live: JsonObject,
    config: JsonObject,
    managed: Managed,
    manager: string,
    force: boolean,
    subresource: string,
  ): { object: JsonObject; managed: Managed } {
    try {
      return this.applyTracked(live, config, cloneManaged(managed), manager, force, subresource);
    } catch (err) {
      if (manager !== KUBECTL || !(err instanceof Conflicts)) throw this.asApplyError(err);
      const allowed = this.setByLastApplied(live);
      if (allowed === undefined) throw this.asApplyError(err);
      const remaining = new Map<string, FieldSet>();
      for (const [id, set] of err.byManager) {
        const rest = difference(set, allowed);
        if (!isEmptySet(rest)) remaining.set(id, rest);
      }
      if (remaining.size > 0) throw this.asApplyError(new Conflicts(remaining));
      try {
        return this.applyTracked(live, config, cloneManaged(managed), manager, true, subresource);
      } catch (e) {
        throw this.asApplyError(e);
      }
    }
  }

  /** The fields of the last-applied annotation whose values the object still has. */
  private setByLastApplied(live: JsonObject): FieldSet | undefined {
    const annotations = (live['metadata'] as KubeObject['metadata'] | undefined)?.annotations;
    const text = annotations?.[LAST_APPLIED];
    if (!text) return undefined;
    let last: unknown;
    try {
      last = JSON.parse(text);
    } catch {
      return undefined;
    }
    if (!isObject(last) || last['apiVersion'] !== this.apiVersion) return undefined;
    const t = this.config.type;
    const c = compare(last, withoutManagedFields(live), t);
    return difference(difference(difference(toFieldSet(last, t), c.modified), c.added), c.removed);
  }

  /** An object no one manages gets its present fields recorded first, then the apply. */
  private applyTracked(
    live: JsonObject,
    config: JsonObject,
    managed: Managed,
    manager: string,
    force: boolean,
    subresource: string,
  ): { object: JsonObject; managed: Managed } {
    if (managed.fields.size === 0) this.recordUpdate(this.empty(), live, managed, BEFORE_FIRST_APPLY, subresource);
    const meta = config['metadata'];
    if (isObject(meta) && meta['managedFields'] !== undefined && meta['managedFields'] !== null) {
      throw new ApplyError(400, applyText.managedFieldsMustBeNil);
    }
    let configSet: FieldSet;
    try {
      configSet = toFieldSet(config, this.config.type, true);
    } catch (err) {
      if (!(err instanceof TypedValueError)) throw err;
      throw new ApplyError(500, applyText.typedPatch(this.describe(config), err.message));
    }
    const id = managerIdentifier({
      manager: manager || 'unknown',
      operation: 'Apply',
      ...(subresource ? { subresource } : {}),
    });
    const cx = this.context(subresource, live, config);
    const liveBare = withoutManagedFields(live);
    const next = recordApply(cx, liveBare, config, configSet, managed, id, force) as JsonObject | undefined;
    this.strip(managed, id);
    dropEmpty(managed);
    if (next !== undefined) managed.times.set(id, secondPrecision(this.config.clock.now()));
    return { object: next ?? structuredClone(liveBare), managed };
  }

  private describe(config: JsonObject): string {
    const meta = isObject(config['metadata']) ? config['metadata'] : {};
    const ns = typeof meta['namespace'] === 'string' ? meta['namespace'] : '';
    const name = typeof meta['name'] === 'string' ? meta['name'] : '';
    const apiVersion = typeof config['apiVersion'] === 'string' ? config['apiVersion'] : '';
    const [group, version] = apiVersion.includes('/') ? apiVersion.split('/', 2) : ['', apiVersion];
    return `${ns}/${name}; ${group}/${version}, Kind=${typeof config['kind'] === 'string' ? config['kind'] : ''}`;
  }

  private asApplyError(err: unknown): unknown {
    if (!(err instanceof Conflicts)) return err;
    const groups = [...err.byManager]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([id, set]) => ({ manager: printManager(parseIdentifier(id)), paths: paths(set).map(pathString) }));
    const count = groups.reduce((n, g) => n + g.paths.length, 0);
    const causes = groups.flatMap((g) => g.paths.map((field) => ({ manager: g.manager, field })));
    const message =
      count === 1
        ? applyText.oneConflict(groups[0]!.manager, groups[0]!.paths[0]!)
        : applyText.manyConflicts(count, groups);
    return new ApplyError(409, message, causes);
  }

  private hasLastApplied(obj: JsonObject): boolean {
    const annotations = (obj['metadata'] as KubeObject['metadata'] | undefined)?.annotations;
    return typeof annotations?.[LAST_APPLIED] === 'string' && annotations[LAST_APPLIED] !== '';
  }

  /** The annotation kubectl's client-side apply reads, rewritten to what this apply applied. */
  private setLastApplied(obj: JsonObject, config: JsonObject): void {
    const copy = structuredClone(config);
    const meta = isObject(copy['metadata']) ? copy['metadata'] : undefined;
    if (meta && isObject(meta['annotations'])) {
      const annotations = meta['annotations'];
      delete annotations[LAST_APPLIED];
      if (Object.keys(annotations).length === 0) delete meta['annotations'];
    }
    const metadata = isObject(obj['metadata']) ? obj['metadata'] : {};
    metadata['annotations'] = {
      ...(metadata['annotations'] as Record<string, string> | undefined),
      [LAST_APPLIED]: `${goJsonSorted(copy)}\n`,
    };
    obj['metadata'] = metadata;
  }
}
