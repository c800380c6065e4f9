// The KubeletConfigRejected event message: the ConfigMap with its uid and resourceVersion, the stage, what runs
// instead and the real cause, within 1 KiB of UTF-8 however long the cause.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_REJECTION_BYTES, rejectionMessage, truncateUtf8 } from '../../../src/agent/dynamicconfig/rejection.js';

const assigned = {
  configMap: { namespace: 'kube-system', name: 'bad', kubeletConfigKey: 'kubelet', uid: 'u-1', resourceVersion: '42' },
};

describe('rejectionMessage', () => {
  it('names the ConfigMap, its uid and resourceVersion, the stage, the fallback and the cause', () => {
    assert.equal(
      rejectionMessage({
        assigned,
        stage: 'validate',
        detail: 'invalid configuration: kubeAPIQPS (--kube-api-qps) -1 must not be a negative number',
        runs: 'local',
      }),
      'ConfigMap kube-system/bad (key kubelet, UID: u-1, ResourceVersion: 42) failed validation; running the local config: ' +
        'invalid configuration: kubeAPIQPS (--kube-api-qps) -1 must not be a negative number',
    );
    assert.match(
      rejectionMessage({ assigned, stage: 'crashloop', detail: 'x', runs: 'last-known-good' }),
      /kept the agent from becoming healthy; running the last-known-good config: x$/,
    );
    assert.match(rejectionMessage({ assigned, stage: 'parse', detail: 'y', runs: 'local' }), /could not be decoded/);
    assert.match(
      rejectionMessage({ assigned, stage: 'validate', detail: 'z', runs: 'current' }),
      /failed validation; running the config it already runs: z$/,
    );
  });

  it('stays within 1 KiB of UTF-8, cut on a character and marked', () => {
    const m = rejectionMessage({ assigned, stage: 'parse', detail: 'é'.repeat(2000), runs: 'local' });
    assert.ok(Buffer.byteLength(m, 'utf8') <= MAX_REJECTION_BYTES);
    assert.ok(m.endsWith('é…'));
    assert.equal(truncateUtf8('short', 10), 'short');
    assert.equal(truncateUtf8('😀😀😀', 9), '😀…');
  });
});
