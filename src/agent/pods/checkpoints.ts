// The CPU and memory managers' checkpoints (cpu_manager_state, memory_manager_state in the kubelet's root directory)
// and what the node does with them at start, as the kubelet does (pkg/kubelet/cm/cpumanager/state,
// memorymanager/state, cpu_manager.go NewManager): a missing file is written fresh; a file whose policy differs from
// the configured one, or whose checksum does not verify, stops the start with the kubelet's message, which asks to
// drain the node and delete that file; a static CPU policy without a CPU reservation stops it first. Pure: the agent
// reads the files, writes what this says, or exits with the error. The checksum is the kubelet's: FNV-32a over Go's
// spew dump of the checkpoint struct with checksum 0 (0 itself is accepted, as the kubelet accepts it).
//
// Here rather than in nodepolicy/: the checkpoints are the node's own state, read and written only by the agent when
// it stands in for the kubelet; what a config change needs of them (drain, reset) is kubeletconfig's changeNeeds.

import {
  CPU_MANAGER_STATE,
  MEMORY_MANAGER_STATE,
  Quantity,
  type KubeletConfiguration,
} from '../../kubeletconfig/index.js';
import { checkpoints as texts } from './messages.js';

export interface CPUManagerCheckpoint {
  policyName: string;
  defaultCpuSet: string;
  /** Pod UID → container name → cpuset; omitted when empty. */
  entries?: Record<string, Record<string, string>>;
  checksum: number;
}

export interface MemoryTable {
  total: number;
  systemReserved: number;
  allocatable: number;
  reserved: number;
  free: number;
}

export interface NUMANodeState {
  numberOfAssignments: number;
  memoryMap: Record<string, MemoryTable>;
  cells: number[];
}

export interface MemoryBlock {
  numaAffinity: number[];
  type: string;
  size: number;
}

export interface MemoryManagerCheckpoint {
  policyName: string;
  /** NUMA node id → its state. */
  machineState: Record<string, NUMANodeState>;
  entries?: Record<string, Record<string, MemoryBlock[]>>;
  checksum: number;
}

// ---- checksums -------------------------------------------------------------------------------------------------

function fnv32a(s: string): number {
  let h = 0x811c9dc5;
  for (const b of Buffer.from(s, 'utf8')) h = Math.imul(h ^ b, 0x01000193) >>> 0;
  return h >>> 0;
}

const sortedKeys = (o: object | undefined): string[] => Object.keys(o ?? {}).sort();
const spewMap = (o: object | undefined, value: (k: string) => string, keys = sortedKeys(o)): string =>
  `map[${keys.map((k) => `${k}:${value(k)}`).join(' ')}]`;

export function cpuChecksum(cp: Omit<CPUManagerCheckpoint, 'checksum'>): number {
  const entries = spewMap(cp.entries, (uid) => spewMap(cp.entries![uid], (c) => cp.entries![uid]![c]!));
  return fnv32a(
    `(*state.CPUManagerCheckpoint){PolicyName:(string)${cp.policyName} DefaultCPUSet:(string)${cp.defaultCpuSet} ` +
      `Entries:(map[string]map[string]string)${entries} Checksum:(checksum.Checksum)0}`,
  );
}

const table = (t: MemoryTable): string =>
  `<*>{TotalMemSize:(uint64)${t.total} SystemReserved:(uint64)${t.systemReserved} Allocatable:(uint64)${t.allocatable} ` +
  `Reserved:(uint64)${t.reserved} Free:(uint64)${t.free}}`;

const numaState = (s: NUMANodeState): string =>
  `<*>{NumberOfAssignments:(int)${s.numberOfAssignments} MemoryMap:(map[v1.ResourceName]*state.MemoryTable)` +
  `${spewMap(s.memoryMap, (k) => table(s.memoryMap[k]!))} Cells:([]int)[${s.cells.join(' ')}]}`;

const block = (b: MemoryBlock): string =>
  `{NUMAAffinity:([]int)[${b.numaAffinity.join(' ')}] Type:(v1.ResourceName)${b.type} Size:(uint64)${b.size}}`;

export function memoryChecksum(cp: Omit<MemoryManagerCheckpoint, 'checksum'>): number {
  const numaKeys = Object.keys(cp.machineState).sort((a, b) => Number(a) - Number(b));
  const machine = spewMap(cp.machineState, (k) => numaState(cp.machineState[k]!), numaKeys);
  const entries = spewMap(cp.entries, (uid) =>
    spewMap(cp.entries![uid], (c) => `[${cp.entries![uid]![c]!.map(block).join(' ')}]`),
  );
  return fnv32a(
    `(*state.MemoryManagerCheckpoint){PolicyName:(string)${cp.policyName} MachineState:(state.NUMANodeMap)${machine} ` +
      `Entries:(state.ContainerMemoryAssignments)${entries} Checksum:(checksum.Checksum)0}`,
  );
}

// ---- the start-up decision -------------------------------------------------------------------------------------

type ManagerConfig = Pick<
  KubeletConfiguration,
  | 'cpuManagerPolicy'
  | 'memoryManagerPolicy'
  | 'reservedSystemCPUs'
  | 'kubeReserved'
  | 'systemReserved'
  | 'reservedMemory'
>;

export interface CheckpointInput {
  config: ManagerConfig;
  /** The kubelet root directory the files live in (`/var/lib/kubelet`). */
  rootDir: string;
  /** The files' contents; undefined when absent. */
  cpuState?: string | undefined;
  memoryState?: string | undefined;
  /** The simulated machine: its CPUs (ids 0…n-1) and memory, on one NUMA node. */
  machine: { cpus: number; memoryBytes: number };
}

export type CheckpointDecision =
  { action: 'start'; write: { file: string; content: string }[] } | { action: 'fail'; error: string };

/** A cpuset's size (`0-3,6` → 5). */
function cpusetSize(set: string): number {
  let n = 0;
  for (const part of set.split(',').filter((p) => p.trim() !== '')) {
    const [a, b] = part.split('-').map((x) => Number(x.trim()));
    n += b === undefined ? 1 : b - a! + 1;
  }
  return n;
}

/** NewManager's reservation check: reservedSystemCPUs overrides kube+system reserved cpu; a zero sum is absent. */
function cpuReservationError(config: ManagerConfig): string | undefined {
  if (config.cpuManagerPolicy !== 'static') return undefined;
  let milli = 0n;
  if (config.reservedSystemCPUs.trim() !== '') milli = BigInt(cpusetSize(config.reservedSystemCPUs)) * 1000n;
  else {
    for (const r of [config.kubeReserved, config.systemReserved]) {
      if (r?.cpu !== undefined) milli += Quantity.parse(r.cpu).milliValue();
    }
  }
  // GetNodeAllocatableReservation leaves a zero sum out of its list, so the kubelet reports it as unknown; its
  // `requires … greater than zero` check after that sees only non-zero sums.
  return milli === 0n ? texts.cpuReservationUnknown : undefined;
}

const joinPath = (dir: string, file: string): string => `${dir.replace(/\/+$/, '')}/${file}`;

function freshCpu(input: CheckpointInput): string {
  const all = input.machine.cpus <= 1 ? '0' : `0-${input.machine.cpus - 1}`;
  const body = {
    policyName: input.config.cpuManagerPolicy,
    defaultCpuSet: input.config.cpuManagerPolicy === 'static' ? all : '',
  };
  return JSON.stringify({ ...body, checksum: cpuChecksum(body) });
}

function freshMemory(input: CheckpointInput): string {
  const machineState: Record<string, NUMANodeState> = {};
  if (input.config.memoryManagerPolicy === 'Static') {
    const total = input.machine.memoryBytes;
    const limit = input.config.reservedMemory?.find((r) => r.numaNode === 0)?.limits?.['memory'];
    const reserved = limit ? Number(Quantity.parse(String(limit)).value()) : 0;
    const t = { total, systemReserved: reserved, allocatable: total - reserved, reserved: 0, free: total - reserved };
    machineState['0'] = { numberOfAssignments: 0, memoryMap: { memory: t }, cells: [0] };
  }
  const body = { policyName: input.config.memoryManagerPolicy, machineState };
  return JSON.stringify({ ...body, checksum: memoryChecksum(body) });
}

/** Reads one file: its policy, or why it cannot be used (the inner error the kubelet wraps). */
function stored<T extends { policyName: string; checksum: number }>(raw: string, sum: (cp: T) => number): T | string {
  let cp: T;
  try {
    cp = JSON.parse(raw) as T;
  } catch (e) {
    return texts.unreadable(e instanceof Error ? e.message : String(e));
  }
  if (typeof cp !== 'object' || cp === null || typeof cp.policyName !== 'string') return texts.corrupt;
  if (cp.checksum !== 0 && sum(cp) !== cp.checksum) return texts.corrupt;
  return cp;
}

interface Manager<T> {
  file: string;
  raw: string | undefined;
  policy: string;
  sum: (cp: T) => number;
  fresh: () => string;
  mismatch: (configured: string, stored: string) => string;
  restoreError: (inner: string, file: string) => string;
  /** How the container manager's start reports the manager's error. */
  startError: (why: string) => string;
}

/** One manager's file: to write fresh, fine as it is (undefined), or the start-up error. */
function restoreOne<T extends { policyName: string; checksum: number }>(
  m: Manager<T>,
): { file: string; content: string } | { error: string } | undefined {
  if (m.raw === undefined) return { file: m.file, content: m.fresh() };
  const cp = stored<T>(m.raw, m.sum);
  const inner =
    typeof cp === 'string' ? cp : cp.policyName !== m.policy ? m.mismatch(m.policy, cp.policyName) : undefined;
  return inner === undefined ? undefined : { error: m.startError(m.restoreError(inner, m.file)) };
}

export function restoreCheckpoints(input: CheckpointInput): CheckpointDecision {
  const { config, rootDir } = input;
  const reservation = cpuReservationError(config);
  if (reservation) return { action: 'fail', error: reservation };
  const cpu: Manager<CPUManagerCheckpoint> = {
    file: joinPath(rootDir, CPU_MANAGER_STATE),
    raw: input.cpuState,
    policy: config.cpuManagerPolicy,
    sum: cpuChecksum,
    fresh: () => freshCpu(input),
    mismatch: texts.cpuPolicyMismatch,
    restoreError: texts.cpuRestore,
    startError: texts.startCpuManager,
  };
  const memory: Manager<MemoryManagerCheckpoint> = {
    file: joinPath(rootDir, MEMORY_MANAGER_STATE),
    raw: input.memoryState,
    policy: config.memoryManagerPolicy,
    sum: memoryChecksum,
    fresh: () => freshMemory(input),
    mismatch: texts.memoryPolicyMismatch,
    restoreError: texts.memoryRestore,
    startError: texts.startMemoryManager,
  };
  const write: { file: string; content: string }[] = [];
  // The CPU manager starts before the memory manager; the first refusal is the one the kubelet reports.
  for (const outcome of [restoreOne(cpu), restoreOne(memory)]) {
    if (outcome === undefined) continue;
    if ('error' in outcome) return { action: 'fail', error: outcome.error };
    write.push(outcome);
  }
  return { action: 'start', write };
}
