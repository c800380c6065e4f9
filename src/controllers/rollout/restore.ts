// An undo's node counts as restored only when the node says it runs what it was put back on, as a change counts as
// done only when the node runs it: status.config.assigned and active name the restored source (no ConfigMap for the
// local config), without error, and the node is Ready. Until then it stays in flight (since the restoring patch);
// past the progress deadline it is NotRestored with reason NotActive, saying whether the node ever acknowledged the
// assignment. Pure.

import type { Node, NodeConfigSource } from '../../api/types.js';
import { sameRef } from './nodeview.js';
import { formatTimeCeil, type NodeProgress } from '../../api/dkc/rollout.js';
import { restoreMessages } from './messages.js';

/** Whether the node reports `source` assigned and active, without error, and is Ready. */
export function restoredOn(node: Node, source: NodeConfigSource | null): boolean {
  const cfg = node.status?.config;
  const ready = node.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
  return (
    ready &&
    !cfg?.error &&
    sameRef(cfg?.assigned?.configMap, source?.configMap) &&
    sameRef(cfg?.active?.configMap, source?.configMap)
  );
}

/** The record of a node just put back on its previous source: in flight from now. */
export function restoring(record: NodeProgress, nowMs: number): NodeProgress {
  const next: NodeProgress = { ...record, state: 'InFlight', updatedAt: formatTimeCeil(nowMs) };
  delete next.readySince;
  return next;
}

/** The next record of a node found back on `source`, where this undo put it. */
export function restoreStep(
  node: Node,
  record: NodeProgress,
  source: NodeConfigSource | null,
  nowMs: number,
  deadlineMs: number,
): NodeProgress {
  if (restoredOn(node, source)) {
    const done: NodeProgress = { ...record, state: 'Reverted' };
    delete done.readySince;
    return done;
  }
  // Put back by a leader that stopped before recording it: the wait starts now.
  if (record.state !== 'InFlight') return restoring(record, nowMs);
  const since = Date.parse(record.updatedAt ?? '');
  if (Number.isNaN(since) || nowMs < since + deadlineMs) return record;
  const acknowledged = sameRef(node.status?.config?.assigned?.configMap, source?.configMap);
  const seconds = Math.round(deadlineMs / 1000);
  return {
    ...record,
    state: 'NotRestored',
    reason: 'NotActive',
    message: acknowledged ? restoreMessages.notActive(seconds) : restoreMessages.neverAcknowledged(seconds),
  };
}

/** When an undo's node in flight passes the progress deadline, in ms from now (undefined: none in flight). */
export function restoreDueMs(
  nodes: Record<string, NodeProgress>,
  nowMs: number,
  deadlineMs: number,
): number | undefined {
  const due = Object.values(nodes)
    .filter((p) => p.state === 'InFlight')
    .map((p) => Date.parse(p.updatedAt ?? '') + deadlineMs - nowMs)
    .filter((d) => !Number.isNaN(d) && d > 0);
  return due.length > 0 ? Math.min(...due) : undefined;
}
