// The node's simulated container runtime: the Pods it runs, kept in one file under the node's root directory
// (`pods/runtime.json`, replaced atomically and durably), so that a restarted agent finds them running with their
// uids, IPs and start times, as a restarted kubelet finds its containers in containerd. Each Pod gets an IP of the
// node's Pod range, the lowest one free.

import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../../util/atomicfile.js';
import type { Pod } from '../../api/workloads.js';
import type { RunningPod, RuntimeState } from './types.js';

export const RUNTIME_FILE = join('pods', 'runtime.json');

/** The node's Pod range as a /24 prefix ("10.244.3."): its spec.podCIDR's, else one named by the node's name. */
export function podRangeOf(nodeName: string, podCIDR: string | undefined): string {
  const m = /^(\d+)\.(\d+)\.(\d+)\.0\/24$/.exec(podCIDR ?? '');
  if (m) return `${m[1]}.${m[2]}.${m[3]}.`;
  let h = 0;
  for (const ch of nodeName) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  return `10.${64 + ((h >>> 8) % 64)}.${h % 256}.`;
}

/** The lowest address of the range (from .2; .1 is the node's bridge) no running Pod has. Pure. */
export function freeIP(range: string, state: RuntimeState): string | undefined {
  const used = new Set(Object.values(state.pods).map((p) => p.ip));
  for (let i = 2; i < 255; i++) if (!used.has(`${range}${i}`)) return `${range}${i}`;
  return undefined;
}

/** The record of a Pod the runtime starts now. Pure. */
export function startedPod(pod: Pod, ip: string, now: string): RunningPod {
  return {
    uid: pod.metadata?.uid ?? '',
    namespace: pod.metadata?.namespace ?? '',
    name: pod.metadata?.name ?? '',
    ip,
    startedAt: now,
    containers: (pod.spec?.containers ?? []).map((c) => ({ name: c.name, image: c.image ?? '', startedAt: now })),
  };
}

/** Where the runtime keeps the Pods it runs: it outlives the agent, as containerd outlives the kubelet. */
export interface PodRuntime {
  state: RuntimeState;
  /** What an earlier agent left. */
  load(): Promise<RuntimeState>;
  save(state: RuntimeState): Promise<void>;
}

/** A fleet's runtime for one of its nodes: in the fleet's memory, which outlives each node's agent. */
export class MemoryRuntime implements PodRuntime {
  state: RuntimeState = { pods: {} };
  load(): Promise<RuntimeState> {
    return Promise.resolve(this.state);
  }
  save(state: RuntimeState): Promise<void> {
    this.state = state;
    return Promise.resolve();
  }
}

/** The runtime's file: read at start, written after each change. */
export class RuntimeStore implements PodRuntime {
  private readonly path: string;
  state: RuntimeState = { pods: {} };

  constructor(rootDir: string) {
    this.path = join(rootDir, RUNTIME_FILE);
  }

  /** Reads what an earlier agent left; nothing there is an empty runtime. A file that does not parse is an error. */
  async load(): Promise<RuntimeState> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return this.state;
      throw err;
    }
    const parsed = JSON.parse(text) as Partial<RuntimeState>;
    this.state = { pods: parsed.pods ?? {} };
    return this.state;
  }

  async save(state: RuntimeState): Promise<void> {
    await mkdir(join(this.path, '..'), { recursive: true, mode: 0o700 });
    await writeFileAtomic(this.path, `${JSON.stringify(state)}\n`, 0o600);
    this.state = state;
  }
}
