// How the rollout controller writes what it shares with people and other tools: by server-side apply, as field
// manager dkc-rollout-controller. A node assignment applies the controller's whole intent for that object (the
// rollout annotation while a rollout holds it, spec.configSource), so a label, an annotation or any field someone
// else set stays theirs; a field the controller stops applying goes unless another manager owns it too. Conflicts
// are told apart as the managers that hold the field: a field an Update manager wrote (kubectl patch or edit, the
// object's history before managedFields) is taken, as the controller's merge patches always took it; a field another
// applier declares (kubectl apply --server-side, a GitOps tool) is not: the write fails with AssignmentConflict, which
// the controller reports on the rollout. The decisions are pure; `applyAssignment` does the requests.

import type { Status } from '../../api/errors.js';
import type { ObjectMeta } from '../../api/types.js';
import { isApiError, type RestClient } from '../../client/index.js';
import { ControllerError } from '../errors.js';
import { channelMessages as messages } from './messages.js';
import type { NodePatch } from './plan/index.js';

export const FIELD_MANAGER = 'dkc-rollout-controller';

type Json = Record<string, unknown>;
type Meta = ObjectMeta & { managedFields?: { manager?: string; operation?: string; fieldsV1?: Json }[] };
type Assigned = { metadata: Meta; spec?: { configSource?: unknown } };

/**
 * What the controller applies to the object that keeps `p.node`'s assignment (a Node or a NodeConfig), given the
 * object as last seen: its name and the resourceVersion the plan read (a precondition), the annotations the patch
 * sets (the rollout's, the guarded revert record), and the source the patch sets, or, when it sets none, the source the object has (the
 * controller goes on owning it: a source it stopped applying would go). `extra` adds fields the object must keep
 * (a NodeConfig's owner reference). Pure.
 */
export function appliedAssignment(
  head: { apiVersion: string; kind: string; name: string },
  p: NodePatch,
  seen: Assigned | undefined,
  extra: Json = {},
): Json {
  // The annotations the patch sets (the holder, the guarded revert record); those it removes are left out.
  const annotations = Object.fromEntries(
    Object.entries(p.patch.metadata.annotations).filter((e): e is [string, string] => typeof e[1] === 'string'),
  );
  const metadata: Json = { name: head.name, ...extra };
  if (p.resourceVersion !== '') metadata['resourceVersion'] = p.resourceVersion;
  if (Object.keys(annotations).length > 0) metadata['annotations'] = annotations;
  const source = p.patch.spec ? p.patch.spec.configSource : seen?.spec?.configSource;
  const out: Json = { apiVersion: head.apiVersion, kind: head.kind, metadata };
  if (source !== undefined && source !== null) out['spec'] = { configSource: source };
  return out;
}

/**
 * The merge patch that still removes what `p` removes and the apply left because another manager owns it too (an
 * annotation or source recorded before managedFields, or by an Update); undefined when nothing is left. Pure.
 */
export function leftOver(p: NodePatch, answer: Assigned): Json | undefined {
  const annotations: Record<string, null> = {};
  for (const [k, v] of Object.entries(p.patch.metadata.annotations))
    if (v === null && answer.metadata.annotations?.[k] !== undefined) annotations[k] = null;
  const source = p.patch.spec !== undefined && p.patch.spec.configSource === null && answer.spec?.configSource != null;
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
 * one with an applier throws AssignmentConflict. Then what `p` removes and the apply could not is removed by a merge
 * patch, unless an applier declares it (AssignmentConflict again).
 */
export async function applyAssignment<T extends Assigned>(
  client: ApplyClient,
  path: string,
  config: Json,
  p: NodePatch,
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
        messages.fieldConflict(p.node, err.status.message ?? ''),
      );
    answer = await apply(true);
  }
  const removal = leftOver(p, answer);
  if (removal === undefined) return answer;
  const held = appliedByOthers(removal, answer);
  if (held.length > 0)
    throw new ControllerError('DKC_CONTROLLER_FIELD_CONFLICT', messages.fieldConflict(p.node, held.join('; ')));
  return client.patch<T>(path, 'merge', removal, { signal, query: { fieldManager: FIELD_MANAGER } });
}

/** Whether an error is a write refused because another applier holds the field (reported on the rollout). */
export function isAssignmentConflict(err: unknown): err is ControllerError {
  return err instanceof ControllerError && err.code === 'DKC_CONTROLLER_FIELD_CONFLICT';
}
