// `dkc rollout plan`'s lines: the nodes a rollout of the ConfigMap would take, and each node whose daemon reports a
// local drop-in overriding a field the config sets (one the config does not set is nothing).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { previewLines } from '../../../src/workflow/rollout/preview.js';

describe('previewLines', () => {
  const ref = { namespace: 'kube-system', name: 'max-pods', kubeletConfigKey: 'kubelet' };
  const text = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nmaxPods: 50\n';

  it('names the nodes, then each one a local drop-in would keep from running the config', () => {
    const reports = new Map([
      ['node-2', { localOverrides: [{ field: 'maxPods', file: '95-local.conf' }] }],
      ['node-3', { localOverrides: [{ field: 'cpuManagerPolicy', file: '95-local.conf' }] }],
    ]);
    assert.deepEqual(previewLines({ ref, text, nodes: ['node-1', 'node-2', 'node-3'], reports }), [
      'ConfigMap kube-system/max-pods (key kubelet) would go to 3 nodes: node-1, node-2, node-3',
      'node node-2: a local drop-in overrides maxPods (95-local.conf): it would not run the config as rolled out, and fail (LocalOverride)',
    ]);
  });

  it('without reports (no NodeConfigs served), only the nodes', () => {
    assert.deepEqual(previewLines({ ref, text, nodes: ['node-1'], reports: new Map() }), [
      'ConfigMap kube-system/max-pods (key kubelet) would go to 1 node: node-1',
    ]);
  });
});
