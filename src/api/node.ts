// Readings of a core/v1 Node that more than one component makes. Pure.

interface NodeLike {
  status?: { conditions?: { type?: string; status?: string; lastHeartbeatTime?: string | null }[] };
}

/** Whether `node` reports Ready=True with a heartbeat at or after `sinceMs` (to the second, as metav1.Time is written). */
export function readySince(node: NodeLike, sinceMs: number): boolean {
  const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
  if (ready?.status !== 'True' || !ready.lastHeartbeatTime) return false;
  return Date.parse(ready.lastHeartbeatTime) >= Math.floor(sinceMs / 1000) * 1000;
}
