// What controller tests on a real server do in place of the agents: a Node that reports Ready with room for Pods, as
// a kubelet registers it, and a Pod marked Running and Ready through pods/status, as its kubelet would report it.

import type { NodeSpec } from '../../src/api/types.js';
import type { RestClient } from '../../src/client/index.js';

export async function readyNode(admin: RestClient, name: string, spec: NodeSpec = {}, cpu = '4'): Promise<void> {
  await admin.create('/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name }, spec });
  const resources = { cpu, memory: '4Gi', pods: '110' };
  await admin.patch(`/api/v1/nodes/${name}/status`, 'merge', {
    status: {
      capacity: resources,
      allocatable: resources,
      conditions: [
        { type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status' },
      ],
    },
  });
}

export async function markRunningReady(admin: RestClient, namespace: string, pod: string): Promise<void> {
  await admin.patch(`/api/v1/namespaces/${namespace}/pods/${pod}/status`, 'merge', {
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
  });
}
