import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decode, suggestName } from '../../src/kubeletconfig/index.js';
import { editDistance } from '../../src/kubeletconfig/suggest.js';

const HEADER = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n';

test('edit distance counts a swap of neighbours as one edit', () => {
  assert.equal(editDistance('maxpods', 'maxpodz'), 1);
  assert.equal(editDistance('maxpods', 'mxapods'), 1);
  assert.equal(editDistance('', 'abc'), 3);
  assert.equal(editDistance('kitten', 'sitting'), 3);
});

test('near misses name the field meant; far ones name nothing', () => {
  const known = ['maxPods', 'maxOpenFiles', 'podsPerCore', 'port'];
  assert.equal(suggestName('maxPodz', known), 'maxPods');
  assert.equal(suggestName('MaxPods', known), 'maxPods');
  assert.equal(suggestName('maxpod', known), 'maxPods');
  assert.equal(suggestName('Port', known), 'port');
  assert.equal(suggestName('foo', known), undefined);
  assert.equal(suggestName('somethingElse', known), undefined);
});

test('decode warnings carry the suggestion, at the level of the struct the typo is in', () => {
  const { config, warnings } = decode(
    HEADER + 'maxPodz: 50\nauthentication:\n  webhook:\n    enabeld: false\nbogus: 1\n',
  );
  assert.equal(config.maxPods, undefined, 'the typo is still ignored, as the kubelet ignores it');
  assert.deepEqual(
    warnings.map((w) => [w.message, w.suggestion]),
    [
      [
        'unknown field "authentication.webhook.enabeld", did you mean "authentication.webhook.enabled"?',
        'authentication.webhook.enabled',
      ],
      ['unknown field "bogus"', undefined],
      ['unknown field "maxPodz", did you mean "maxPods"?', 'maxPods'],
    ],
  );
});
