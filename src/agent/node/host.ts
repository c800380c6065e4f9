// Facts about the machine the agent runs on: cores and memory, the size of the filesystem holding the
// agent's state, the machine/boot identifiers, OS image and kernel, and a default node IP. The only
// module of the node lifecycle that reads the host; everything it returns feeds the pure builders.

import { statfs, readFile } from 'node:fs/promises';
import * as os from 'node:os';
import { isIP } from 'node:net';
import { Quantity } from '../../kubeletconfig/index.js';
import type { MachineResources } from './capacity.js';

/** cpu and memory as cadvisor reports them: whole cores, memory in bytes (BinarySI). */
export function hostCPUAndMemory(): MachineResources {
  const cores = os.availableParallelism?.() ?? os.cpus().length;
  return {
    cpu: Quantity.fromBigInt(BigInt(Math.max(1, cores))),
    memory: Quantity.fromBigInt(BigInt(os.totalmem()), 'BinarySI'),
  };
}

/** The size of the filesystem holding `dir` (the kubelet's root dir), as ephemeral-storage; undefined if unreadable. */
export async function ephemeralStorageOf(dir: string): Promise<Quantity | undefined> {
  try {
    const s = await statfs(dir, { bigint: true });
    return Quantity.fromBigInt(s.blocks * s.bsize, 'BinarySI');
  } catch {
    return undefined;
  }
}

/** Machine capacity: cores, memory, and ephemeral-storage when `rootDir` is given and readable. */
export async function hostCapacity(rootDir?: string): Promise<MachineResources> {
  const out = hostCPUAndMemory();
  if (rootDir !== undefined) {
    const storage = await ephemeralStorageOf(rootDir);
    if (storage !== undefined) out['ephemeral-storage'] = storage;
  }
  return out;
}

/** The host facts that go into status.nodeInfo besides versions. */
export interface HostSystemInfo {
  machineID: string;
  systemUUID: string;
  bootID: string;
  kernelVersion: string;
  osImage: string;
  operatingSystem: string;
  architecture: string;
}

async function readTrimmed(path: string): Promise<string> {
  try {
    return (await readFile(path, 'utf8')).trim();
  } catch {
    return '';
  }
}

/** PRETTY_NAME of os-release, as cadvisor reports the OS image; "" when absent. */
export function parseOSRelease(text: string): string {
  for (const line of text.split('\n')) {
    const m = /^PRETTY_NAME=(.*)$/.exec(line.trim());
    if (m) return m[1]!.replace(/^(["'])(.*)\1$/, '$2');
  }
  return '';
}

/** Go's GOARCH names for Node's process.arch. */
export function goArch(arch: string = process.arch): string {
  const map: Record<string, string> = {
    x64: 'amd64',
    ia32: '386',
    arm: 'arm',
    arm64: 'arm64',
    ppc64: 'ppc64le',
    s390x: 's390x',
    riscv64: 'riscv64',
  };
  return map[arch] ?? arch;
}

/** Go's GOOS names for Node's process.platform. */
export function goOS(platform: string = process.platform): string {
  return platform === 'win32' ? 'windows' : platform;
}

/**
 * Reads /etc/machine-id, the DMI product UUID, /proc/sys/kernel/random/boot_id and os-release; each is
 * empty when missing (containers and non-Linux hosts lack some of them).
 */
export async function readHostSystemInfo(): Promise<HostSystemInfo> {
  const [machineID, systemUUID, bootID, osRelease] = await Promise.all([
    readTrimmed('/etc/machine-id'),
    readTrimmed('/sys/class/dmi/id/product_uuid'),
    readTrimmed('/proc/sys/kernel/random/boot_id'),
    readTrimmed('/etc/os-release'),
  ]);
  return {
    machineID,
    systemUUID,
    bootID,
    kernelVersion: os.release(),
    osImage: parseOSRelease(osRelease),
    operatingSystem: goOS(),
    architecture: goArch(),
  };
}

/** The node's hostname as the kubelet derives it: os.hostname(), lower-cased. */
export function hostname(): string {
  return os.hostname().toLowerCase();
}

/**
 * The InternalIP to report when `--node-ip` is not given: the serving address when it is a specific one,
 * otherwise the first non-internal IPv4 address of the host, else loopback.
 */
export function defaultNodeIP(
  address?: string,
  interfaces: NodeJS.Dict<os.NetworkInterfaceInfo[]> = os.networkInterfaces(),
): string {
  if (address !== undefined && isIP(address) !== 0 && address !== '0.0.0.0' && address !== '::') return address;
  for (const list of Object.values(interfaces)) {
    for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  }
  return '127.0.0.1';
}
