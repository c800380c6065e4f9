// metadata.managedFields read and written as kube-apiserver does: one entry per manager identity — the manager's
// name, operation and subresource, and for updates the apiVersion — holding a FieldsV1 set and the time of its last
// change (second precision); entries sorted Apply before Update, then by time, manager, apiVersion and subresource.
// A list holding one empty entry (or an empty list) asks for the field management to be reset.

import { fromFieldsV1, isEmptySet, knownSorted, sorted, type FieldSet } from './fieldset.js';
import { goJsonString } from './pathelement.js';
import { managedText } from './messages.js';

export type Operation = 'Apply' | 'Update';

/** One manager's fields (structured-merge-diff's VersionedSet). */
export interface VersionedSet {
  readonly set: FieldSet;
  readonly apiVersion: string;
  readonly applied: boolean;
}

/** The managers of an object by identifier, and the time each last changed something. */
export interface Managed {
  readonly fields: Map<string, VersionedSet>;
  readonly times: Map<string, string | undefined>;
  /** The stored entries they were read from: an entry whose manager did not change is written back as it was. */
  readonly stored?: Map<string, ManagedFieldsEntry>;
}

export interface ManagerIdentity {
  manager: string;
  operation: Operation;
  apiVersion?: string;
  subresource?: string;
}

export function emptyManaged(): Managed {
  return { fields: new Map(), times: new Map() };
}

/** The identifier of a manager: its entry without time and fields, and without apiVersion for appliers (upstream's). */
export function managerIdentifier(m: ManagerIdentity): string {
  let s = '{';
  const add = (k: string, v: string | undefined) => {
    if (!v) return;
    if (s.length > 1) s += ',';
    s += `"${k}":${goJsonString(v)}`;
  };
  add('manager', m.manager);
  add('operation', m.operation);
  if (m.operation !== 'Apply') add('apiVersion', m.apiVersion);
  add('subresource', m.subresource);
  return `${s}}`;
}

const identities = new Map<string, ManagerIdentity>();

export function parseIdentifier(id: string): ManagerIdentity {
  const known = identities.get(id);
  if (known) return known;
  const parsed = parseIdentity(id);
  if (identities.size > 10_000) identities.clear();
  identities.set(id, parsed);
  return parsed;
}

function parseIdentity(id: string): ManagerIdentity {
  const o = JSON.parse(id) as Partial<ManagerIdentity>;
  return {
    manager: o.manager ?? '',
    operation: o.operation === 'Apply' ? 'Apply' : 'Update',
    ...(o.apiVersion ? { apiVersion: o.apiVersion } : {}),
    ...(o.subresource ? { subresource: o.subresource } : {}),
  };
}

export class ManagedFieldsError extends Error {
  override readonly name = 'ManagedFieldsError';
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/**
 * Decodes managedFields. `trusted` entries (read from storage, written by this server) are used as they are;
 * others (from a request) are checked and their sets cleaned of what upstream would drop.
 */
export function decodeManagedFields(entries: unknown, trusted: boolean): Managed {
  const out: Managed = trusted ? { ...emptyManaged(), stored: new Map() } : emptyManaged();
  if (entries === undefined || entries === null) return out;
  if (!Array.isArray(entries)) throw new ManagedFieldsError(managedText.notList);
  entries.forEach((e: unknown, i) => {
    const entry = isObject(e) ? e : {};
    const operation = entry['operation'];
    if (operation !== 'Apply' && operation !== 'Update') throw new ManagedFieldsError(managedText.operation);
    const apiVersion = str(entry['apiVersion']);
    if (!apiVersion) throw new ManagedFieldsError(managedText.apiVersion);
    const fieldsType = str(entry['fieldsType']);
    if (fieldsType === '') throw new ManagedFieldsError(managedText.missingFieldsType(i));
    if (fieldsType !== 'FieldsV1') throw new ManagedFieldsError(managedText.invalidFieldsType(fieldsType, i));
    const raw = entry['fieldsV1'];
    let set: FieldSet | undefined;
    if (raw === undefined || raw === null) set = {};
    else if (trusted && isObject(raw)) set = knownSorted(raw as FieldSet);
    else set = fromFieldsV1(raw);
    if (set === undefined) throw new ManagedFieldsError(managedText.invalidSet(i));
    const id = managerIdentifier({
      manager: str(entry['manager']),
      operation,
      apiVersion,
      subresource: str(entry['subresource']),
    });
    out.fields.set(id, { set, apiVersion, applied: operation === 'Apply' });
    const time = entry['time'];
    out.times.set(id, typeof time === 'string' && time ? time : undefined);
    out.stored?.set(id, entry as ManagedFieldsEntry);
  });
  return out;
}

/** Whether a request's managedFields ask for a reset: an empty list, or one entry that is empty. */
export function isResetManagedFields(entries: unknown): boolean {
  if (!Array.isArray(entries)) return false;
  if (entries.length === 0) return true;
  return entries.length === 1 && isObject(entries[0]) && Object.keys(entries[0]).length === 0;
}

export type ManagedFieldsEntry = {
  manager?: string;
  operation: Operation;
  apiVersion: string;
  time?: string;
  fieldsType: 'FieldsV1';
  fieldsV1: FieldSet;
  subresource?: string;
};

function seconds(t: string | undefined): number {
  if (!t) return 0;
  const ms = Date.parse(t);
  return Number.isFinite(ms) ? Math.floor(ms / 1000) : 0;
}

function compareEntries([p, ps]: [ManagedFieldsEntry, number], [q, qs]: [ManagedFieldsEntry, number]): number {
  if (p.operation !== q.operation) return p.operation < q.operation ? -1 : 1;
  if (ps !== qs) return ps - qs;
  const pm = p.manager ?? '';
  const qm = q.manager ?? '';
  if (pm !== qm) return pm < qm ? -1 : 1;
  if (p.apiVersion !== q.apiVersion) return p.apiVersion < q.apiVersion ? -1 : 1;
  const pr = p.subresource ?? '';
  const qr = q.subresource ?? '';
  return pr === qr ? 0 : pr < qr ? -1 : 1;
}

/** The managedFields of `managed`, sorted as upstream sorts them; undefined when no one manages anything. */
export function encodeManagedFields(managed: Managed): ManagedFieldsEntry[] | undefined {
  if (managed.fields.size === 0) return undefined;
  const entries: [ManagedFieldsEntry, number][] = [];
  for (const [id, vs] of managed.fields) {
    const time = managed.times.get(id);
    const stored = managed.stored?.get(id);
    if (
      stored &&
      stored.fieldsV1 === vs.set &&
      stored.time === time &&
      stored.apiVersion === vs.apiVersion &&
      (stored.operation === 'Apply') === vs.applied
    ) {
      entries.push([stored, seconds(time)]);
      continue;
    }
    const who = parseIdentifier(id);
    // In the order Go writes a ManagedFieldsEntry.
    const entry: ManagedFieldsEntry = {
      ...(who.manager ? { manager: who.manager } : {}),
      operation: vs.applied ? 'Apply' : who.operation,
      apiVersion: vs.apiVersion,
      ...(time ? { time } : {}),
      fieldsType: 'FieldsV1',
      fieldsV1: sorted(vs.set),
      ...(who.subresource ? { subresource: who.subresource } : {}),
    };
    entries.push([entry, seconds(time)]);
  }
  return entries.sort(compareEntries).map(([e]) => e);
}

/** Drops managers whose sets became empty. */
export function dropEmpty(managed: Managed): void {
  for (const [id, vs] of managed.fields) if (isEmptySet(vs.set)) managed.fields.delete(id);
}
