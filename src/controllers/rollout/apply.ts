// How the rollout controller writes what it shares with people and other tools: by server-side apply, as field
// manager dkc-rollout-controller. A node assignment applies the controller's whole intent for that object (the
// rollout annotation while a rollout holds it, spec.configSource), so a label, an annotation or any field someone
// else set stays theirs; a field the controller stops applying goes unless another manager owns it too. Conflicts
// are told apart as the managers that hold the field: a field an Update manager wrote (kubectl patch or edit, the
// object's history before managedFields) is taken, as the controller's merge patches always took it; a field another
// applier declares (kubectl apply --server-side, a GitOps tool) is not: the write fails with AssignmentConflict, which
// the controller reports on the rollout. What the plan assigns becomes what is written in one place,
// `assignmentPatch`. The decisions are pure; `applyAssignment` does the requests.

import type { Status } from '../../api/errors.js';
import type { NodeConfigSource, ObjectMeta } from '../../api/types.js';
import type { PreviousAssignment } from '../../api/dkc/nodeconfig.js';
import {
  LEGACY_PREVIOUS_SOURCE_ANNOTATION,
  REVERT_RECORD_ANNOTATION,
  ROLLOUT_ANNOTATION,
} from '../../api/dkc/rollout.js';
import { isApiError, type RestClient } from '../../client/index.js';
import { ControllerError } from '../errors.js';
import { channelMessages as messages } from './messages.js';
import type { NodeAssignment } from './plan/index.js';
import { encodeRecord, normalRecord } from './trust.js';

export const FIELD_MANAGER = 'dkc-rollout-controller';

type Json = Record<string, unknown>;
type Meta = ObjectMeta & { managedFields?: { manager?: string; operation?: string; fieldsV1?: Json }[] };
type Assigned = { metadata: Meta; spec?: { configSource?: unknown } };

/** A node assignment as a JSON merge patch of the object that keeps it (a Node or a NodeConfig). */
export interface AssignmentPatch {
  /** The resourceVersion the plan read (a precondition); the annotations set (a string) and removed (null). */
  metadata: { resourceVersion: string; annotations: Record<string, string | null> };
  /** Absent: the object keeps the source it has. */
  spec?: { configSource: NodeConfigSource | null };
  /** A NodeConfig's guarded revert record, written first, through its status (null: none). */
  status?: { previous: PreviousAssignment | null };
}

/**
 * The one place a node assignment becomes what is written, as one change so that all of it or none takes: the
 * dkc.io/rollout annotation names the holder (removed when none holds the node); the guarded copy of the holder's
 * revert record goes with it (removed with it), as the dkc.io/revert-record annotation on a Node or as a NodeConfig's
 * status.previous; the legacy record's annotation always goes; spec.configSource is set unless the source is kept.
 * Pure.
 */
export function assignmentPatch(a: NodeAssignment, kind: 'Node' | 'NodeConfig'): AssignmentPatch {
  const annotations: Record<string, string | null> = { [ROLLOUT_ANNOTATION]: a.holder?.rollout ?? null };
  if (kind === 'Node') annotations[REVERT_RECORD_ANNOTATION] = a.holder ? encodeRecord(a.holder.record) : null;
  annotations[LEGACY_PREVIOUS_SOURCE_ANNOTATION] = null;
  const patch: AssignmentPatch = { metadata: { resourceVersion: a.resourceVersion, annotations } };
  if (a.source !== 'kept') patch.spec = { configSource: a.source };
  if (kind === 'NodeConfig') patch.status = { previous: a.holder ? normalRecord(a.holder.record) : null };
  return patch;
}

/**
 * What the controller applies to the object that keeps a node's assignment (a Node or a NodeConfig), given its patch
 * (`assignmentPatch`) and the object as last seen: its name and the resourceVersion the plan read (a precondition),
 * the annotations the patch sets (the rollout's, the guarded revert record), and the source the patch sets, or, when
 * it sets none, the source the object has (the controller goes on owning it: a source it stopped applying would go).
 * `extra` adds fields the object must keep (a NodeConfig's owner reference). Pure.
 */
export function appliedAssignment(
  head: { apiVersion: string; kind: string; name: string },
  p: AssignmentPatch,
  seen: Assigned | undefined,
  extra: Json = {},
): Json {
  // The annotations the patch sets (the holder, the guarded revert record); those it removes are left out.
  const annotations = Object.fromEntries(
    Object.entries(p.metadata.annotations).filter((e): e is [string, string] => typeof e[1] === 'string'),
  );
  const metadata: Json = { name: head.name, ...extra };
  if (p.metadata.resourceVersion !== '') metadata['resourceVersion'] = p.metadata.resourceVersion;
  if (Object.keys(annotations).length > 0) metadata['annotations'] = annotations;
  const source = p.spec ? p.spec.configSource : seen?.spec?.configSource;
  const out: Json = { apiVersion: head.apiVersion, kind: head.kind, metadata };
  if (source !== undefined && source !== null) out['spec'] = { configSource: source };
  return out;
}

/**
 * The merge patch that still removes what `p` removes and the apply left because another manager owns it too (an
 * annotation or source recorded before managedFields, or by an Update); undefined when nothing is left. Pure.
 */
export function leftOver(p: AssignmentPatch, answer: Assigned): Json | undefined {
  const annotations: Record<string, null> = {};
  for (const [k, v] of Object.entries(p.metadata.annotations))
    if (v === null && answer.metadata.annotations?.[k] !== undefined) annotations[k] = null;
  const source = p.spec !== undefined && p.spec.configSource === null && answer.spec?.configSource != null;
  if (Object.keys(annotations).length === 0 && !source) return undefined;
  const out: Json = {
    metadata: {
      resourceVersion: answer.metadata.resourceVersion,
      ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
    },
  };
  if (source) out['spec'] = { configSource: null };
  return out;
}

/** The fields of a removal (as FieldsV1 paths) that another manager applies, by manager; empty when none. Pure. */
export function appliedByOthers(removal: Json, answer: Assigned): string[] {
  const paths: string[][] = [];
  const annotations = (removal['metadata'] as { annotations?: Json } | undefined)?.annotations ?? {};
  for (const k of Object.keys(annotations)) paths.push(['f:metadata', 'f:annotations', `f:${k}`]);
  if (removal['spec'] !== undefined) paths.push(['f:spec', 'f:configSource']);
  const out: string[] = [];
  for (const e of answer.metadata.managedFields ?? []) {
    if (e.operation !== 'Apply' || e.manager === FIELD_MANAGER) continue;
    for (const path of paths) {
      let at: unknown = e.fieldsV1;
      for (const step of path) at = at !== null && typeof at === 'object' ? (at as Json)[step] : undefined;
      if (at !== undefined)
        out.push(`conflict with ${JSON.stringify(e.manager)}: .${path.map((s) => s.slice(2)).join('.')}`);
    }
  }
  return out;
}

/**
 * The managers a 409 of server-side apply names, from its causes ("conflict with "m"", "… using v1" for an
 * Update manager, "… with subresource "status"" before it): undefined when the 409 is not a field conflict (a stale
 * resourceVersion), else whether any of them applies the field. Pure.
 */
export function fieldConflict(status: Status): { byApplier: boolean } | undefined {
  const causes = (status.details?.causes ?? []).filter((c) => c.reason === 'FieldManagerConflict');
  if (status.code !== 409 || causes.length === 0) return undefined;
  return {
    byApplier: causes.some(
      (c) =>
        !/^conflict with "(?:[^"\\]|\\.)*"(?: with subresource "(?:[^"\\]|\\.)*")? using \S+$/.test(c.message ?? ''),
    ),
  };
}

type ApplyClient = Pick<RestClient, 'patch'>;

/**
 * Applies `config` at `path` as the controller; a conflict with Update managers only is applied again with force,
 * one with an applier throws AssignmentConflict. Then what `node`'s patch `p` removes and the apply could not is
 * removed by a merge patch, unless an applier declares it (AssignmentConflict again).
 */
export async function applyAssignment<T extends Assigned>(
  client: ApplyClient,
  path: string,
  config: Json,
  node: string,
  p: AssignmentPatch,
  signal: AbortSignal,
): Promise<T> {
  const apply = (force: boolean) =>
    client.patch<T>(path, 'apply', config, {
      signal,
      query: { fieldManager: FIELD_MANAGER, ...(force ? { force: 'true' } : {}) },
    });
  let answer: T;
  try {
    answer = await apply(false);
  } catch (err) {
    const conflict = isApiError(err) ? fieldConflict(err.status) : undefined;
    if (!conflict || !isApiError(err)) throw err;
    if (conflict.byApplier)
      throw new ControllerError(
        'DKC_CONTROLLER_FIELD_CONFLICT',
        messages.fieldConflict(node, err.status.message ?? ''),
      );
    answer = await apply(true);
  }
  const removal = leftOver(p, answer);
  if (removal === undefined) return answer;
  const held = appliedByOthers(removal, answer);
  if (held.length > 0)
    throw new ControllerError('DKC_CONTROLLER_FIELD_CONFLICT', messages.fieldConflict(node, held.join('; ')));
  return client.patch<T>(path, 'merge', removal, { signal, query: { fieldManager: FIELD_MANAGER } });
}

/** Whether an error is a write refused because another applier holds the field (reported on the rollout). */
export function isAssignmentConflict(err: unknown): err is ControllerError {
  return err instanceof ControllerError && err.code === 'DKC_CONTROLLER_FIELD_CONFLICT';
}
