// The CPU and memory managers' checkpoint files at the agent's start, as the kubelet's container manager starts
// them: read from the root directory, judged by ./checkpoints.ts, written fresh where missing, or the start refused
// with the kubelet's own error. The agent never deletes them: that is the operator's step (or a drained node's), as
// the kubelet's message says.

import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { CPU_MANAGER_STATE, MEMORY_MANAGER_STATE, type KubeletConfiguration } from '../../kubeletconfig/index.js';
import { writeFileAtomic } from '../../util/atomicfile.js';
import type { MachineResources } from '../node/capacity.js';
import { AgentStartError } from '../starterror.js';
import { restoreCheckpoints } from './checkpoints.js';
import { checkpoints as texts } from './messages.js';
import { readFileIfPresent } from '../../util/optionalfile.js';

/** The simulated machine's CPUs and memory; one CPU and no memory when the host reports none. */
function machineOf(m: MachineResources): { cpus: number; memoryBytes: number } {
  return { cpus: Math.max(1, Number(m.cpu?.value() ?? 1n)), memoryBytes: Number(m.memory?.value() ?? 0n) };
}

/** Restores (or creates) the managers' state under `rootDir`; throws AgentStartError when the kubelet would not start. */
export async function startContainerManager(
  rootDir: string,
  config: KubeletConfiguration,
  machine: MachineResources,
): Promise<void> {
  const decision = restoreCheckpoints({
    config,
    rootDir,
    cpuState: await readFileIfPresent(join(rootDir, CPU_MANAGER_STATE)),
    memoryState: await readFileIfPresent(join(rootDir, MEMORY_MANAGER_STATE)),
    machine: machineOf(machine),
  });
  if (decision.action === 'fail') throw new AgentStartError(texts.startFailed(decision.error));
  if (decision.write.length) await mkdir(rootDir, { recursive: true });
  for (const w of decision.write) await writeFileAtomic(w.file, w.content, 0o644);
}
