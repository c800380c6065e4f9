// The CPU and memory managers' checkpoints at start: fresh files when absent (with the kubelet's checksum, checked
// against an observed file), acceptance when the policy matches, the kubelet's refusal when it does not or when the
// file is corrupt, and the static CPU policy's reservation check.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  cpuChecksum,
  memoryChecksum,
  restoreCheckpoints,
  type CheckpointInput,
} from '../../../src/agent/pods/checkpoints.js';
import { setDefaults, type PartialKubeletConfiguration } from '../../../src/kubeletconfig/index.js';

const input = (p: PartialKubeletConfiguration, files: Partial<CheckpointInput> = {}): CheckpointInput => ({
  config: setDefaults(p),
  rootDir: '/var/lib/kubelet',
  machine: { cpus: 4, memoryBytes: 8 * 2 ** 30 },
  ...files,
});

const CPU_NONE = '{"policyName":"none","defaultCpuSet":"","checksum":1353318690}';

describe('checkpoint checksums', () => {
  it("the CPU manager's matches an observed file", () => {
    assert.equal(cpuChecksum({ policyName: 'none', defaultCpuSet: '' }), 1353318690);
  });
  it('entries and the memory machine state change the sum', () => {
    assert.notEqual(
      cpuChecksum({ policyName: 'static', defaultCpuSet: '0-3', entries: { u: { c: '1' } } }),
      cpuChecksum({ policyName: 'static', defaultCpuSet: '0-3' }),
    );
    const m = {
      numberOfAssignments: 0,
      memoryMap: { memory: { total: 2, systemReserved: 1, allocatable: 1, reserved: 0, free: 1 } },
      cells: [0],
    };
    assert.notEqual(
      memoryChecksum({ policyName: 'Static', machineState: { '0': m } }),
      memoryChecksum({ policyName: 'Static', machineState: {} }),
    );
  });
});

describe('restoreCheckpoints', () => {
  it('absent files are written fresh: none / None', () => {
    const d = restoreCheckpoints(input({}));
    assert.equal(d.action, 'start');
    if (d.action !== 'start') return;
    assert.deepEqual(
      d.write.map((w) => w.file),
      ['/var/lib/kubelet/cpu_manager_state', '/var/lib/kubelet/memory_manager_state'],
    );
    assert.equal(d.write[0]!.content, CPU_NONE);
    const mem = JSON.parse(d.write[1]!.content) as { policyName: string; machineState: object; checksum: number };
    assert.deepEqual([mem.policyName, mem.machineState], ['None', {}]);
    assert.equal(mem.checksum, memoryChecksum({ policyName: 'None', machineState: {} }));
  });

  it('static CPU fresh: every CPU in the default set', () => {
    const d = restoreCheckpoints(input({ cpuManagerPolicy: 'static', kubeReserved: { cpu: '500m' } }));
    assert.equal(d.action, 'start');
    if (d.action !== 'start') return;
    const cpu = JSON.parse(d.write[0]!.content) as { policyName: string; defaultCpuSet: string; checksum: number };
    assert.deepEqual([cpu.policyName, cpu.defaultCpuSet], ['static', '0-3']);
    assert.equal(cpu.checksum, cpuChecksum({ policyName: 'static', defaultCpuSet: '0-3' }));
  });

  it('static memory fresh: NUMA node 0 with the reservation', () => {
    const d = restoreCheckpoints(input({ memoryManagerPolicy: 'Static' }, { cpuState: CPU_NONE }));
    assert.equal(d.action, 'start');
    if (d.action !== 'start') return;
    assert.equal(d.write.length, 1);
    const mem = JSON.parse(d.write[0]!.content) as {
      machineState: Record<string, { memoryMap: { memory: { total: number; free: number } } }>;
    };
    assert.deepEqual(mem.machineState['0']!.memoryMap.memory.total, 8 * 2 ** 30);
  });

  it('matching files are accepted, nothing written', () => {
    const mem = restoreCheckpoints(input({})) as { action: 'start'; write: { content: string }[] };
    const d = restoreCheckpoints(input({}, { cpuState: CPU_NONE, memoryState: mem.write[1]!.content }));
    assert.deepEqual(d, { action: 'start', write: [] });
  });

  it('a checksum of 0 is accepted', () => {
    const d = restoreCheckpoints(
      input(
        {},
        {
          cpuState: '{"policyName":"none","defaultCpuSet":"","checksum":0}',
          memoryState: '{"policyName":"None","machineState":{},"checksum":0}',
        },
      ),
    );
    assert.deepEqual(d, { action: 'start', write: [] });
  });

  it('CPU policy mismatch: the kubelet message', () => {
    const d = restoreCheckpoints(
      input({ cpuManagerPolicy: 'static', kubeReserved: { cpu: '1' } }, { cpuState: CPU_NONE }),
    );
    assert.deepEqual(d, {
      action: 'fail',
      error:
        'start cpu manager error: could not restore state from checkpoint: configured policy "static" differs from state checkpoint policy "none", ' +
        'please drain this node and delete the CPU manager checkpoint file "/var/lib/kubelet/cpu_manager_state" before restarting Kubelet',
    });
  });

  it('memory policy mismatch: the kubelet message', () => {
    const d = restoreCheckpoints(
      input({}, { cpuState: CPU_NONE, memoryState: '{"policyName":"Static","machineState":{},"checksum":0}' }),
    );
    assert.deepEqual(d, {
      action: 'fail',
      error:
        'start memory manager error: could not restore state from checkpoint: [memorymanager] configured policy "None" differs from state checkpoint policy "Static", ' +
        'please drain this node and delete the memory manager checkpoint file "/var/lib/kubelet/memory_manager_state" before restarting Kubelet',
    });
  });

  it('a checksum that does not verify: corrupt', () => {
    const d = restoreCheckpoints(
      input({}, { cpuState: '{"policyName":"none","defaultCpuSet":"0","checksum":1353318690}' }),
    );
    assert.equal(d.action, 'fail');
    assert.match(
      d.action === 'fail' ? d.error : '',
      /^start cpu manager error: could not restore state from checkpoint: checkpoint is corrupted, please drain/,
    );
  });

  it('static CPU policy without a CPU reservation fails before any file is read', () => {
    assert.deepEqual(restoreCheckpoints(input({ cpuManagerPolicy: 'static' }, { cpuState: 'garbage' })), {
      action: 'fail',
      error: '[cpumanager] unable to determine reserved CPU resources for static policy',
    });
    const reserved = restoreCheckpoints(input({ cpuManagerPolicy: 'static', reservedSystemCPUs: '0-1' }));
    assert.equal(reserved.action, 'start');
  });
});
