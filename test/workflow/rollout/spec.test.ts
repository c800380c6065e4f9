// `dkc rollout start`'s flags become exactly the NodeConfigRollout the CRD describes, and each bad flag is refused
// before any request with kubectl's flag-error wording.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { RolloutError } from '../../../src/workflow/rollout/errors.js';
import {
  buildRollout,
  parseIntOrPercent,
  parseNodeSelector,
  parseSeconds,
  parseTimeout,
} from '../../../src/workflow/rollout/spec.js';

function refused(fn: () => unknown, message: RegExp): void {
  assert.throws(
    fn,
    (err: unknown) =>
      err instanceof RolloutError && err.code === 'DKC_ROLLOUT_INVALID_FLAG' && message.test(err.message),
  );
}

describe('buildRollout', () => {
  it('writes only the flags given, so the schema defaults fill in the rest', () => {
    assert.deepEqual(buildRollout('max-pods-50', { configmap: 'kube-system/node-config' }), {
      apiVersion: 'dkc.io/v1alpha1',
      kind: 'NodeConfigRollout',
      metadata: { name: 'max-pods-50' },
      spec: {
        configSource: { configMap: { namespace: 'kube-system', name: 'node-config', kubeletConfigKey: 'kubelet' } },
        nodeSelector: {},
      },
    });
  });

  it('maps every flag onto its spec field', () => {
    const r = buildRollout('r', {
      configmap: 'kube-system/cm',
      key: 'config',
      selector: 'pool=blue',
      canary: '25%',
      maxUnavailable: '2',
      soak: '30s',
      deadline: '2m',
      maxFailures: '1',
      haltOnFailure: true,
      pauseAfterCanary: true,
      skipIncompatible: true,
    });
    assert.deepEqual(r.spec, {
      configSource: { configMap: { namespace: 'kube-system', name: 'cm', kubeletConfigKey: 'config' } },
      nodeSelector: { matchLabels: { pool: 'blue' } },
      strategy: { canary: '25%', maxUnavailable: 2, soakSeconds: 30, pauseAfterCanary: true, skipIncompatible: true },
      progressDeadlineSeconds: 120,
      maxFailures: 1,
      failurePolicy: 'Halt',
    });
  });

  it('refuses a --configmap that is not NAMESPACE/NAME, and an empty --key', () => {
    for (const v of ['cm', '/cm', 'ns/', 'a/b/c', ''])
      refused(() => buildRollout('r', { configmap: v }), /for "--configmap" flag: must be NAMESPACE\/NAME$/);
    refused(() => buildRollout('r', { configmap: 'a/b', key: '' }), /for "--key" flag: must not be empty/);
  });
});

describe('flag values', () => {
  it('reads N and N% as the int-or-string the CRD holds', () => {
    assert.equal(parseIntOrPercent('--canary', '0'), 0);
    assert.equal(parseIntOrPercent('--canary', '3'), 3);
    assert.equal(parseIntOrPercent('--canary', '10%'), '10%');
    for (const v of ['-1', '1.5', '01', 'x', '%', '5%%', '99999999999']) {
      refused(
        () => parseIntOrPercent('--canary', v),
        new RegExp(
          `^invalid argument "${v.replace(/[.%]/g, '\\$&')}" for "--canary" flag: must be a non-negative integer or a percentage`,
        ),
      );
    }
  });

  it("reads durations with Go's rules, in whole seconds", () => {
    assert.equal(parseSeconds('--soak', '30s', 0), 30);
    assert.equal(parseSeconds('--soak', '0', 0), 0);
    assert.equal(parseSeconds('--deadline', '1h2m3s', 1), 3723);
    refused(
      () => parseSeconds('--soak', '30', 0),
      /^invalid argument "30" for "--soak" flag: time: missing unit in duration "30"$/,
    );
    refused(() => parseSeconds('--soak', '1.5s', 0), /must be a whole number of seconds/);
    refused(() => parseSeconds('--soak', '-1s', 0), /must not be negative/);
    refused(() => parseSeconds('--deadline', '0s', 1), /must be at least 1s/);
  });

  it('reads --timeout as a positive duration', () => {
    assert.equal(parseTimeout('--timeout', '10m'), 600_000);
    assert.equal(parseTimeout('--timeout', '1500ms'), 1500);
    refused(() => parseTimeout('--timeout', '0s'), /must be greater than 0/);
    refused(() => parseTimeout('--timeout', 'soon'), /time: invalid duration "soon"/);
  });

  it("turns kubectl's selector syntax into a metav1.LabelSelector", () => {
    assert.deepEqual(parseNodeSelector(''), {});
    assert.deepEqual(parseNodeSelector('pool=blue,zone==a'), { matchLabels: { pool: 'blue', zone: 'a' } });
    assert.deepEqual(parseNodeSelector('env in (prod,dev),tier notin (x),gpu,!legacy,team!=ops'), {
      matchExpressions: [
        { key: 'env', operator: 'In', values: ['dev', 'prod'] },
        { key: 'gpu', operator: 'Exists' },
        { key: 'legacy', operator: 'DoesNotExist' },
        { key: 'team', operator: 'NotIn', values: ['ops'] },
        { key: 'tier', operator: 'NotIn', values: ['x'] },
      ],
    });
    refused(() => parseNodeSelector('pool=blue,'), /for "--selector" flag: /);
    refused(() => parseNodeSelector('cores>4'), /the ">" operator cannot be expressed in a nodeSelector/);
  });
});
