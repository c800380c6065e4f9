// What the controller checks before it acts on a record it keeps where others might write too: a rollout's status
// says what a revert restores (status.nodes[*].previous), that a revert is under way (status.phase: Reverting) and
// which rendered ConfigMap a layered rollout assigns (status.renderedConfigMap). dkc server lets only the controller
// write that status (src/server/auth/rolloutstatus.ts), and deploy/ can say the same for a real cluster, but a
// cluster may grant `*/status` to monitoring or operator tooling: so the controller assigns nothing from its status
// that it cannot corroborate by a record only it writes. Pure.
//
// - The revert record: each node carries a guarded copy, written by the controller with the change (the Node's
//   dkc.io/revert-record annotation, or NodeConfig.status.previous on the NodeConfig channel; both writable by the
//   controller alone on dkc server). An undo restores a node only when the rollout's record agrees with it.
// - Reverting: the controller enters it from its own failure records (more failed nodes than maxFailures), from
//   spec.revert (which needs the right to assign, ADR 21) or from a deletion. A Reverting phase none of those
//   explains was not its decision, and is not carried out.
// - The rendered ConfigMap: its name is its content's hash (ADR 14) under the rollout's name; the controller made it
//   immutable and owned by the rollout. A recorded name whose ConfigMap is not exactly that is never assigned.

import type { ConfigMap, Node } from '../../api/types.js';
import {
  REVERT_RECORD_ANNOTATION,
  isDeleting,
  type NodeConfigRollout,
  type PreviousRecord,
  recordSource,
  sourceOfRecord,
} from '../../api/dkc/rollout.js';
import { configMapHash } from './confighash.js';
import { RENDERED_BY_LABEL, RENDERED_NAMESPACE } from './layers.js';
import { trustMessages } from './messages.js';

/** A revert record in its normal form (a source `{}` or `{configMap}`, the holder only when there was one). */
export function normalRecord(rec: PreviousRecord): PreviousRecord {
  const source = sourceOfRecord(rec.configSource);
  return {
    configSource: recordSource(source ?? null),
    ...(typeof rec.rollout === 'string' && rec.rollout !== '' ? { rollout: rec.rollout } : {}),
  };
}

/** The record as the guarded copy carries it. */
export function encodeRecord(rec: PreviousRecord): string {
  return JSON.stringify(normalRecord(rec));
}

/** The node's guarded copy of its revert record, as the assignment view carries it; undefined when it has none. */
export function guardedRecord(node: Node): PreviousRecord | undefined {
  const text = node.metadata.annotations?.[REVERT_RECORD_ANNOTATION];
  if (text === undefined) return undefined;
  try {
    const rec = JSON.parse(text) as PreviousRecord | null;
    if (rec === null || typeof rec !== 'object' || sourceOfRecord(rec.configSource) === undefined) return undefined;
    return normalRecord(rec);
  } catch {
    return undefined;
  }
}

/** Whether the rollout's record of what `node` ran is the one the node's guarded copy holds. */
export function recordAgrees(node: Node, rec: PreviousRecord | undefined): boolean {
  const guarded = guardedRecord(node);
  if (rec === undefined || guarded === undefined || sourceOfRecord(rec.configSource) === undefined) return false;
  return encodeRecord(rec) === encodeRecord(guarded);
}

/** The failed nodes a rollout's records count: the controller enters Reverting only when they exceed maxFailures. */
function failedRecords(r: NodeConfigRollout): number {
  return Object.values(r.status?.nodes ?? {}).filter((p) => p.reason !== undefined).length;
}

/** Whether a Reverting phase is one the controller decided: spec.revert, a deletion, or its failure records. */
export function decidedRevert(r: NodeConfigRollout): boolean {
  if (r.spec?.revert === true || isDeleting(r)) return true;
  return failedRecords(r) > (r.spec?.maxFailures ?? 0) && r.spec?.failurePolicy !== 'Halt';
}

/**
 * Why the ConfigMap a layered rollout's status names is not one the controller rendered for it, or undefined when it
 * is: in the rendered namespace, immutable, labelled and owned by this rollout, and named `<rollout>-<hash>` by the
 * hash of its own content. The same holds of the immutable copy a rollout pins (./pin.ts).
 */
export function renderedDistrust(r: NodeConfigRollout, cm: ConfigMap | undefined): string | undefined {
  const rollout = r.metadata.name ?? '';
  const name = r.status?.renderedConfigMap ?? '';
  if (cm === undefined) return undefined; // a missing ConfigMap blocks the rollout on its own (ConfigMapNotFound)
  const content: ConfigMap = { metadata: { name: rollout }, data: cm.data ?? {}, immutable: true };
  // A pinned copy carries its source's binaryData too (./pin.ts), hashed with it.
  if (cm.binaryData !== undefined && Object.keys(cm.binaryData).length > 0) content.binaryData = cm.binaryData;
  const hash = configMapHash(content);
  const owned = (cm.metadata.ownerReferences ?? []).some((o) => o.uid !== undefined && o.uid === r.metadata.uid);
  const ok =
    cm.metadata.namespace === RENDERED_NAMESPACE &&
    cm.metadata.name === name &&
    cm.immutable === true &&
    cm.metadata.labels?.[RENDERED_BY_LABEL] === rollout &&
    owned &&
    name === `${rollout}-${hash}`;
  return ok ? undefined : trustMessages.renderedNotOurs(`${RENDERED_NAMESPACE}/${name}`);
}

/**
 * Whether `cm` is a ConfigMap some rollout made (rendered or pinned, ./layers.ts, ./pin.ts): in the copies'
 * namespace, immutable, labelled by its rollout and owned by a NodeConfigRollout. Such a ConfigMap was assigned with
 * the right to assign it (ADR 21), and its content can no longer change.
 */
export function isRolloutCopy(cm: ConfigMap | undefined): boolean {
  if (cm === undefined) return false;
  const owner = (cm.metadata.ownerReferences ?? []).some((o) => o.kind === 'NodeConfigRollout' && o.uid !== '');
  return (
    cm.metadata.namespace === RENDERED_NAMESPACE &&
    cm.immutable === true &&
    (cm.metadata.labels?.[RENDERED_BY_LABEL] ?? '') !== '' &&
    owner
  );
}
