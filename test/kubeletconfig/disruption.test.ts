// What each KubeletConfiguration change needs, one row per line of the reference's table (§9.4).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { changeNeeds, Quantity, setDefaults, type PartialKubeletConfiguration } from '../../src/kubeletconfig/index.js';

const cfg = (p: PartialKubeletConfiguration) => setDefaults(p);

interface Row {
  name: string;
  from: PartialKubeletConfiguration;
  to: PartialKubeletConfiguration;
  need: string;
  reset?: string[];
}

const rows: Row[] = [
  { name: 'no change', from: {}, to: {}, need: 'none' },
  { name: 'spelling out a default is no change', from: {}, to: { maxPods: 110 }, need: 'none' },
  { name: 'any other field: restart', from: {}, to: { maxPods: 50 }, need: 'restart' },
  {
    name: 'cpuManagerPolicy none → static',
    from: {},
    to: { cpuManagerPolicy: 'static', kubeReserved: { cpu: '1' } },
    need: 'drainAndReset',
    reset: ['cpu_manager_state'],
  },
  {
    name: 'cpuManagerPolicy static → none',
    from: { cpuManagerPolicy: 'static' },
    to: {},
    need: 'drainAndReset',
    reset: ['cpu_manager_state'],
  },
  {
    name: 'cpuManagerPolicyOptions with static',
    from: { cpuManagerPolicy: 'static' },
    to: { cpuManagerPolicy: 'static', cpuManagerPolicyOptions: { 'full-pcpus-only': 'true' } },
    need: 'drainAndReset',
    reset: ['cpu_manager_state'],
  },
  {
    name: 'reservedSystemCPUs with static',
    from: { cpuManagerPolicy: 'static', reservedSystemCPUs: '0' },
    to: { cpuManagerPolicy: 'static', reservedSystemCPUs: '0-1' },
    need: 'drainAndReset',
    reset: ['cpu_manager_state'],
  },
  {
    name: 'kubeReserved.cpu with static',
    from: { cpuManagerPolicy: 'static', kubeReserved: { cpu: '1' } },
    to: { cpuManagerPolicy: 'static', kubeReserved: { cpu: '2' } },
    need: 'drainAndReset',
    reset: ['cpu_manager_state'],
  },
  { name: 'systemReserved.cpu with none: restart', from: {}, to: { systemReserved: { cpu: '1' } }, need: 'restart' },
  {
    name: 'memoryManagerPolicy None → Static',
    from: {},
    to: { memoryManagerPolicy: 'Static' },
    need: 'drainAndReset',
    reset: ['memory_manager_state'],
  },
  {
    name: 'reservedMemory with Static',
    from: { memoryManagerPolicy: 'Static' },
    to: { memoryManagerPolicy: 'Static', reservedMemory: [{ numaNode: 0, limits: { memory: Quantity.parse('1Gi') } }] },
    need: 'drainAndReset',
    reset: ['memory_manager_state'],
  },
  {
    name: 'evictionHard memory.available with Static',
    from: { memoryManagerPolicy: 'Static' },
    to: { memoryManagerPolicy: 'Static', evictionHard: { 'memory.available': '200Mi' } },
    need: 'drainAndReset',
    reset: ['memory_manager_state'],
  },
  {
    name: 'kubeReserved.memory with None: restart',
    from: {},
    to: { kubeReserved: { memory: '1Gi' } },
    need: 'restart',
  },
  { name: 'topologyManagerPolicy: drain', from: {}, to: { topologyManagerPolicy: 'single-numa-node' }, need: 'drain' },
  { name: 'topologyManagerScope: drain', from: {}, to: { topologyManagerScope: 'pod' }, need: 'drain' },
  {
    name: 'both managers at once: both files, CPU first',
    from: {},
    to: { memoryManagerPolicy: 'Static', cpuManagerPolicy: 'static', maxPods: 10 },
    need: 'drainAndReset',
    reset: ['cpu_manager_state', 'memory_manager_state'],
  },
];

describe('changeNeeds', () => {
  for (const r of rows) {
    it(r.name, () => {
      const got = changeNeeds(cfg(r.from), cfg(r.to));
      assert.equal(got.need, r.need, JSON.stringify(got.fields));
      assert.deepEqual(got.reset, r.reset ?? []);
    });
  }

  it('names every changed field with its own need', () => {
    const got = changeNeeds(cfg({}), cfg({ cpuManagerPolicy: 'static', maxPods: 10 }));
    assert.deepEqual(got.fields, [
      { path: 'cpuManagerPolicy', need: 'drainAndReset', reset: 'cpu_manager_state' },
      { path: 'maxPods', need: 'restart' },
    ]);
  });
});
