// What a change of KubeletConfiguration needs on a node that runs pods, field by field (the workloads reference,
// §9.4): most fields need only the restart every change needs (the kubelet reads its config at start); a change of
// the CPU or memory manager's policy, or of what their static policies reserve, needs the node drained and the
// manager's checkpoint file removed before the kubelet starts again (else it refuses to start, or keeps stale
// assignments); a change of the topology manager's policy or scope needs a drain, since running pods are admitted
// again and may be refused. One pure function, for the rollout controller, the node daemon, `dkc config diff` and
// `dkc rollout plan`; the version's schema, when given, compares the fields that kubelet minor knows.

import type { StructSpec } from './codec.js';
import { diffConfigs, type FieldChange } from './diff.js';
import type { KubeletConfiguration } from './types.js';

/** The CPU manager's checkpoint, in the kubelet's root directory. */
export const CPU_MANAGER_STATE = 'cpu_manager_state';
/** The memory manager's checkpoint, in the kubelet's root directory. */
export const MEMORY_MANAGER_STATE = 'memory_manager_state';

export type ChangeNeed = 'none' | 'restart' | 'drain' | 'drainAndReset';

export interface FieldNeed {
  /** The changed leaf, as `dkc config diff` prints it. */
  path: string;
  need: Exclude<ChangeNeed, 'none'>;
  /** The checkpoint file the change makes stale. */
  reset?: string;
}

export interface ChangeNeeds {
  /** The strongest need of all the changed fields. */
  need: ChangeNeed;
  /** The checkpoint files to remove while the kubelet is stopped, in a fixed order. */
  reset: string[];
  fields: FieldNeed[];
}

const RANK: Readonly<Record<ChangeNeed, number>> = { none: 0, restart: 1, drain: 2, drainAndReset: 3 };

const CPU_RESERVATION = new Set(['reservedSystemCPUs', 'kubeReserved.cpu', 'systemReserved.cpu']);
const MEMORY_RESERVATION = new Set([
  'kubeReserved.memory',
  'systemReserved.memory',
  'evictionHard["memory.available"]',
]);

function fieldNeed(c: FieldChange, from: KubeletConfiguration, to: KubeletConfiguration): FieldNeed {
  const path = c.path;
  const root = c.keys[0] ?? '';
  const cpuStatic = from.cpuManagerPolicy === 'static' || to.cpuManagerPolicy === 'static';
  const memoryStatic = from.memoryManagerPolicy === 'Static' || to.memoryManagerPolicy === 'Static';
  const resetCpu = { path, need: 'drainAndReset', reset: CPU_MANAGER_STATE } as const;
  const resetMemory = { path, need: 'drainAndReset', reset: MEMORY_MANAGER_STATE } as const;
  if (root === 'cpuManagerPolicy') return resetCpu;
  if (root === 'memoryManagerPolicy') return resetMemory;
  if (cpuStatic && (root === 'cpuManagerPolicyOptions' || CPU_RESERVATION.has(path))) return resetCpu;
  if (memoryStatic && (root === 'reservedMemory' || MEMORY_RESERVATION.has(path))) return resetMemory;
  if (root === 'topologyManagerPolicy' || root === 'topologyManagerScope' || root === 'topologyManagerPolicyOptions') {
    return { path, need: 'drain' };
  }
  return { path, need: 'restart' };
}

/** What moving a node from `from` to `to` (both defaulted, as the node runs them) needs. */
export function changeNeeds(from: KubeletConfiguration, to: KubeletConfiguration, schema?: StructSpec): ChangeNeeds {
  const fields = diffConfigs(from, to, schema).map((c) => fieldNeed(c, from, to));
  let need: ChangeNeed = 'none';
  for (const f of fields) if (RANK[f.need] > RANK[need]) need = f.need;
  const reset = [CPU_MANAGER_STATE, MEMORY_MANAGER_STATE].filter((file) => fields.some((f) => f.reset === file));
  return { need, reset, fields };
}
