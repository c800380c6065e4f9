// What the node offers and what it lets pods use: the `--capacity` flag, capacity from machine facts and the
// config, and allocatable = capacity − kubeReserved − systemReserved − hard eviction thresholds, with the
// kubelet's arithmetic (including its float32 percentages) so a status written here matches what a kubelet
// on the same machine would report. Pure: machine facts come in as arguments (see host.ts).

import {
  parseEvictionThreshold as parseThreshold,
  Quantity,
  QuantityError,
  type EvictionThreshold,
  type KubeletConfiguration,
} from '../../kubeletconfig/index.js';
import { NodeAgentError } from './errors.js';
import { errorMessage } from '../../util/errors.js';

/** A core/v1 ResourceList: resource name → exact quantity. */
export type ResourceList = Record<string, Quantity>;

/** The resources a node reports, in the order `--capacity` documents them. */
export const CAPACITY_RESOURCES = ['cpu', 'memory', 'pods', 'ephemeral-storage'] as const;
export type CapacityResource = (typeof CAPACITY_RESOURCES)[number];

/** Machine facts capacity is built from (host.ts reads them; `--capacity` replaces them). */
export interface MachineResources {
  cpu?: Quantity;
  memory?: Quantity;
  'ephemeral-storage'?: Quantity;
  /** Only from `--capacity`; a real machine has no pod limit of its own. */
  pods?: Quantity;
}

/** The config fields allocatable depends on. */
export type AllocatableConfig = Pick<
  KubeletConfiguration,
  'maxPods' | 'podsPerCore' | 'kubeReserved' | 'systemReserved' | 'evictionHard'
>;

const FLAG_EXAMPLE = 'cpu=4,memory=8Gi,pods=110';

function capacityError(message: string, cause?: unknown): NodeAgentError {
  return new NodeAgentError(
    'DKC_NODE_CAPACITY_INVALID',
    `invalid --capacity: ${message}`,
    cause === undefined ? undefined : { cause },
  );
}

function isCapacityResource(name: string): name is CapacityResource {
  return (CAPACITY_RESOURCES as readonly string[]).includes(name);
}

/**
 * Parses `--capacity cpu=4,memory=8Gi,pods=110[,ephemeral-storage=100Gi]`. Resources left out keep the
 * machine's value (see mergeCapacity). Throws NodeAgentError CAPACITY_INVALID with a one-line message.
 */
export function parseCapacityFlag(text: string): MachineResources {
  const out: MachineResources = {};
  if (text.trim() === '') throw capacityError(`empty value; expected resource=quantity pairs such as ${FLAG_EXAMPLE}`);
  for (const raw of text.split(',')) {
    const pair = raw.trim();
    const eq = pair.indexOf('=');
    if (eq <= 0) throw capacityError(`${JSON.stringify(pair)} is not a resource=quantity pair (e.g. ${FLAG_EXAMPLE})`);
    const name = pair.slice(0, eq).trim();
    const value = pair.slice(eq + 1).trim();
    if (!isCapacityResource(name)) {
      throw capacityError(`unknown resource ${JSON.stringify(name)} (known: ${CAPACITY_RESOURCES.join(', ')})`);
    }
    if (out[name] !== undefined) throw capacityError(`${name} is given more than once`);
    let q: Quantity;
    try {
      q = Quantity.parse(value);
    } catch (err) {
      if (err instanceof QuantityError) throw capacityError(`${name}=${JSON.stringify(value)}: ${err.message}`, err);
      throw err;
    }
    if (q.sign() < 0) throw capacityError(`${name}=${value} must not be negative`);
    if (name === 'pods' && q.milliValue() % 1000n !== 0n) throw capacityError(`pods=${value} must be a whole number`);
    out[name] = q;
  }
  return out;
}

/** The machine's facts with the flag's values taking their place where given. */
export function mergeCapacity(machine: MachineResources, flag: MachineResources | undefined): MachineResources {
  return { ...machine, ...(flag ?? {}) };
}

/** Pods the config allows: maxPods, or min(maxPods, podsPerCore × cores) when podsPerCore > 0. */
export function podsFromConfig(
  cpu: Quantity | undefined,
  config: Pick<KubeletConfiguration, 'maxPods' | 'podsPerCore'>,
): Quantity {
  let pods = BigInt(Math.max(0, Math.trunc(config.maxPods)));
  if (config.podsPerCore > 0 && cpu !== undefined) {
    // The kubelet multiplies whole cores; Quantity.Value() rounds a fractional cpu up, as Go's does.
    const perCore = BigInt(Math.trunc(config.podsPerCore)) * cpu.value();
    if (perCore < pods) pods = perCore;
  }
  return Quantity.fromBigInt(pods);
}

/**
 * Node capacity: cpu, memory and ephemeral-storage as the machine (or `--capacity`) has them, and pods from
 * `--capacity` when given, else from maxPods/podsPerCore as the kubelet reports it.
 */
export function computeCapacity(
  machine: MachineResources,
  config: Pick<KubeletConfiguration, 'maxPods' | 'podsPerCore'>,
): ResourceList {
  const out: ResourceList = {};
  for (const name of CAPACITY_RESOURCES) {
    const q = name === 'pods' ? (machine.pods ?? podsFromConfig(machine.cpu, config)) : machine[name];
    if (q !== undefined) out[name] = q;
  }
  return out;
}

/** Resources the kubelet accepts in kubeReserved/systemReserved (pid limits pods, it is not a capacity). */
const RESERVABLE = new Set(['cpu', 'memory', 'ephemeral-storage', 'pid']);

function reservationError(message: string, cause?: unknown): NodeAgentError {
  return new NodeAgentError('DKC_NODE_RESERVATION_INVALID', message, cause === undefined ? undefined : { cause });
}

/** parseResourceList of the kubelet's start-up, with its messages, prefixed by the field that held the value. */
export function parseReservation(
  field: 'kubeReserved' | 'systemReserved',
  m: Record<string, string> | undefined,
): ResourceList {
  const out: ResourceList = {};
  for (const [name, value] of Object.entries(m ?? {})) {
    if (!RESERVABLE.has(name)) throw reservationError(`${field}: cannot reserve ${JSON.stringify(name)} resource`);
    let q: Quantity;
    try {
      q = Quantity.parse(value);
    } catch (err) {
      throw reservationError(`${field}: ${name}=${JSON.stringify(value)}: ${errorMessage(err)}`, err);
    }
    if (q.sign() < 0)
      throw reservationError(
        `${field}: resource quantity for ${JSON.stringify(name)} cannot be negative: ${q.toString()}`,
      );
    out[name] = q;
  }
  return out;
}

export type { EvictionThreshold } from '../../kubeletconfig/index.js';

/** The capacity resource each signal's threshold is held back from (hardEvictionReservation). */
const SIGNAL_RESOURCE: Readonly<Record<string, CapacityResource>> = {
  'memory.available': 'memory',
  'nodefs.available': 'ephemeral-storage',
};

/**
 * One evictionHard entry, parsed by the same function `dkc config validate` and the boot decision use
 * (so a config that passed them never fails here): undefined for a disabled threshold.
 */
export function parseEvictionThreshold(signal: string, value: string): EvictionThreshold | undefined {
  const r = parseThreshold(signal, value);
  if (r.error !== undefined) throw reservationError(`evictionHard: ${r.error}`);
  return r.threshold;
}

/** GetThresholdQuantity: a percentage becomes int64(float64(capacity.Value()) × fraction) bytes, BinarySI. */
export function thresholdQuantity(t: EvictionThreshold, capacity: Quantity): Quantity {
  if ('quantity' in t) return t.quantity;
  const bytes = Math.trunc(Number(capacity.value()) * t.percentage);
  return Quantity.fromBigInt(BigInt(bytes), 'BinarySI');
}

/** The per-resource sum held back from capacity: reservations plus the hard eviction thresholds mapped to a resource. */
export function allocatableReservation(capacity: ResourceList, config: AllocatableConfig): ResourceList {
  const total: ResourceList = {};
  const add = (name: string, q: Quantity): void => {
    const prev = total[name];
    total[name] = prev === undefined ? q : prev.add(q);
  };
  for (const [name, q] of Object.entries(parseReservation('kubeReserved', config.kubeReserved))) add(name, q);
  for (const [name, q] of Object.entries(parseReservation('systemReserved', config.systemReserved))) add(name, q);
  for (const [signal, value] of Object.entries(config.evictionHard ?? {})) {
    const t = parseEvictionThreshold(signal, value);
    const resource = SIGNAL_RESOURCE[signal];
    if (t === undefined || resource === undefined) continue;
    const cap = capacity[resource];
    if (cap === undefined) continue;
    add(resource, thresholdQuantity(t, cap));
  }
  return total;
}

/**
 * Allocatable for every capacity resource: capacity minus kubeReserved, systemReserved and the evictionHard
 * threshold mapped to it (memory.available → memory, nodefs.available → ephemeral-storage), floored at 0;
 * pods is never reserved, only capped at what the config allows (maxPods, podsPerCore × cores).
 * Throws NodeAgentError RESERVATION_INVALID for a reservation or threshold the kubelet would refuse.
 */
export function computeAllocatable(capacity: ResourceList, config: AllocatableConfig): ResourceList {
  const reserved = allocatableReservation(capacity, config);
  const out: ResourceList = {};
  for (const [name, cap] of Object.entries(capacity)) {
    if (name === 'pods') {
      const allowed = podsFromConfig(capacity['cpu'], config);
      out[name] = allowed.cmp(cap) < 0 ? allowed : cap;
      continue;
    }
    const r = reserved[name];
    let v = r === undefined ? cap : cap.sub(r);
    if (v.sign() < 0) v = Quantity.zero(cap.format);
    out[name] = v;
  }
  return out;
}

/** The JSON form of a ResourceList: canonical Quantity strings, keys in a stable order. */
export function formatResourceList(list: ResourceList): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of Object.keys(list).sort()) out[name] = list[name]!.toString();
  return out;
}
