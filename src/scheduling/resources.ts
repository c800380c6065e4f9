// What a Pod asks of a node and whether the node still has it, as kube-scheduler's NodeResourcesFit plugin and the
// kubelet's admission both compute it (pkg/scheduler/framework/plugins/noderesources fitsRequest,
// component-helpers resource.PodRequests): a pod's request is the sum over its containers, raised to the largest
// init container's, plus the pod overhead; a node fits when one more pod stays within allocatable.pods and every
// requested amount stays within allocatable minus what its pods already request. Pure; amounts are exact integers
// (cpu in millicores, everything else in its base unit).

import { Quantity } from '../kubeletconfig/index.js';
import type { Pod } from '../api/workloads.js';

export const CPU = 'cpu';
export const MEMORY = 'memory';
export const EPHEMERAL_STORAGE = 'ephemeral-storage';
export const PODS = 'pods';

export type Amounts = ReadonlyMap<string, bigint>;

/** One amount of a resource: cpu in millicores (Quantity.MilliValue), the rest rounded up (Quantity.Value). */
export function amountOf(resource: string, q: string): bigint {
  let parsed: Quantity;
  try {
    parsed = Quantity.parse(q);
  } catch {
    // The API server refuses such a pod or node; a value that slipped through counts as nothing.
    return 0n;
  }
  return resource === CPU ? parsed.milliValue() : parsed.value();
}

export function amounts(list: Readonly<Record<string, string>> | undefined): Map<string, bigint> {
  const out = new Map<string, bigint>();
  for (const [name, q] of Object.entries(list ?? {})) out.set(name, amountOf(name, q));
  return out;
}

function addInto(into: Map<string, bigint>, from: Amounts): void {
  for (const [k, v] of from) into.set(k, (into.get(k) ?? 0n) + v);
}

/** resource.PodRequests: Σ containers, max'd per resource with each init container, plus overhead. */
export function podRequests(pod: Pod): Map<string, bigint> {
  const total = new Map<string, bigint>();
  for (const c of pod.spec?.containers ?? []) addInto(total, amounts(c.resources?.requests));
  for (const c of pod.spec?.initContainers ?? []) {
    for (const [k, v] of amounts(c.resources?.requests)) if (v > (total.get(k) ?? 0n)) total.set(k, v);
  }
  addInto(total, amounts(pod.spec?.overhead));
  return total;
}

/** What the given pods request together (NodeInfo.Requested). */
export function requestedBy(pods: readonly Pod[]): Map<string, bigint> {
  const total = new Map<string, bigint>();
  for (const p of pods) addInto(total, podRequests(p));
  return total;
}

export interface InsufficientResource {
  resource: string;
  /** The scheduler's reason: `Too many pods`, `Insufficient cpu`, … */
  reason: string;
  requested: bigint;
  used: bigint;
  capacity: bigint;
}

export interface NodeUsage {
  allocatable: Amounts;
  /** Σ requests of the pods already on the node. */
  requested: Amounts;
  /** How many pods are already on the node. */
  pods: number;
}

const FIRST = [CPU, MEMORY, EPHEMERAL_STORAGE];

/** fitsRequest: every shortfall, pods first, then cpu, memory, ephemeral-storage and the other resources by name. */
export function insufficientResources(request: Amounts, node: NodeUsage): InsufficientResource[] {
  const out: InsufficientResource[] = [];
  const allowedPods = node.allocatable.get(PODS) ?? 0n;
  const used = BigInt(node.pods);
  if (used + 1n > allowedPods) {
    out.push({ resource: PODS, reason: 'Too many pods', requested: 1n, used, capacity: allowedPods });
  }
  const asked = [...request].filter(([k, v]) => k !== PODS && v > 0n);
  if (asked.length === 0) return out;
  const rest = asked.map(([k]) => k).filter((k) => !FIRST.includes(k));
  for (const name of [...FIRST, ...rest.sort()]) {
    const want = request.get(name) ?? 0n;
    if (want <= 0n) continue;
    const capacity = node.allocatable.get(name) ?? 0n;
    const inUse = node.requested.get(name) ?? 0n;
    if (want > capacity - inUse) {
      out.push({ resource: name, reason: `Insufficient ${name}`, requested: want, used: inUse, capacity });
    }
  }
  return out;
}
