// A decode error never quotes the document it failed on. A config may be any ConfigMap's data, and the error is
// shown to people who may not read that ConfigMap: a rollout's RenderFailed condition, the agent's
// KubeletConfigRejected event and log, `dkc config`. The error names the source, the field path or the line.
// (A kind and apiVersion of the shape of a Kubernetes type are named on purpose; the marker here has not that shape.)

import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { DecodeError, KubeletConfigError, decode, load, render } from '../../src/kubeletconfig/index.js';

const MARKER = 's3cr3t-Marker_42';
const HEADER = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n';

/** Documents that do not decode, each holding the marker somewhere. */
const DOCUMENTS: ReadonlyArray<readonly [string, string]> = [
  ['no kind: an application secret', `password: ${MARKER}\napiKey: "${MARKER}"\n`],
  ['no kind: a JSON secret', `{"token": "${MARKER}"}`],
  ['no apiVersion', `kind: KubeletConfiguration\nnote: ${MARKER}\n`],
  ['another kind', `apiVersion: v1\nkind: Secret\nstringData:\n  password: ${MARKER}\n`],
  ['a kind that is the secret', `apiVersion: v1\nkind: ${MARKER}\n`],
  ['an apiVersion that is the secret', `apiVersion: ${MARKER}/v1/x\nkind: Pod\n`],
  ['an apiVersion with one slash that is the secret', `apiVersion: ${MARKER}/x\nkind: KubeletConfiguration\n`],
  ['an unterminated double quote', `password: "${MARKER}\n`],
  ['an unterminated single quote', `password: '${MARKER}\n`],
  ['a tab as indentation', `a:\n\tpassword: ${MARKER}\n`],
  ['a nested compact mapping', `password: ${MARKER}: x\n`],
  ['a sequence after a mapping', `key: value\n- ${MARKER}\n`],
  ['an unknown tag', `password: !${MARKER} x\n`],
  ['an unknown anchor', `password: *${MARKER}\n`],
  ['a bad escape', `password: "\\q${MARKER}"\n`],
  ['a scalar that does not fit its tag', `password: !!int ${MARKER}\n`],
  ['stray flow end', `{a: 1}}${MARKER}`],
  ['a block scalar header with extra characters', `password: |${MARKER}\n  x\n`],
  ['a directive', `%${MARKER} x\n---\na: 1\n`],
  ['invalid JSON', `{"password": ${MARKER}}`],
  ['a JSON string with a control character', `{"password": "${MARKER}\u0001"}`],
  ['a top level that is a string', `"${MARKER}"`],
  ['a Duration that is the secret', `${HEADER}syncFrequency: ${MARKER}\n`],
  ['a Duration with a unit that is the secret', `${HEADER}syncFrequency: 5${MARKER}\n`],
  ['a Quantity that is the secret', `${HEADER}reservedMemory:\n- numaNode: 0\n  limits:\n    memory: ${MARKER}\n`],
  ['a number where a string is wanted, and the secret after it', `${HEADER}clusterDomain: 5\nx: ${MARKER}\n`],
  ['a string where a bool is wanted', `${HEADER}enableServer: "${MARKER}"\n`],
  ['a string where a map is wanted', `${HEADER}featureGates: ${MARKER}\n`],
  ['a string where a list is wanted', `${HEADER}clusterDNS: ${MARKER}\n`],
];

function failure(fn: () => unknown): KubeletConfigError {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof KubeletConfigError, `expected a KubeletConfigError, got ${String(e)}`);
    return e;
  }
  assert.fail('decoded');
}

for (const [what, doc] of DOCUMENTS) {
  test(`${what}: the error names where, never the document`, () => {
    for (const source of [undefined, 'cm/victim/app-secrets:kubelet']) {
      const e = failure(() => decode(doc, source === undefined ? {} : { source }));
      assert.ok(e instanceof DecodeError);
      assert.ok(!e.message.includes(MARKER), e.message);
      assert.ok(!e.message.includes('\n'), `one line: ${e.message}`);
    }
    const base = { name: 'cm/kube-system/base:kubelet', bytes: `${HEADER}maxPods: 10\n` };
    for (const layers of [
      [{ name: 'cm/victim/app-secrets:kubelet', bytes: doc }],
      [base, { name: 'cm/victim/app-secrets:kubelet', bytes: doc }],
    ]) {
      const e = failure(() => render(layers[0]!, layers.slice(1)));
      assert.ok(!e.message.includes(MARKER), e.message);
    }
  });
}

test('a YAML syntax error says which line', () => {
  const e = failure(() => decode(`a: 1\nb:\n\tpassword: ${MARKER}\n`));
  assert.equal(
    e.message,
    'failed to decode: error converting YAML to JSON: yaml: line 3: Tabs are not allowed as indentation',
  );
});

test('no document built around the secret is quoted by its decode error', () => {
  // Fragments of YAML and JSON syntax around the marker, in any order: whatever fails, fails without it.
  const piece = fc.constantFrom(
    MARKER,
    `"${MARKER}`,
    `'${MARKER}'`,
    `!${MARKER}`,
    `&${MARKER}`,
    `*${MARKER}`,
    `%${MARKER}`,
    `@${MARKER}`,
    `|${MARKER}`,
    ': ',
    '\n',
    '\n  ',
    '\n\t',
    '- ',
    '{',
    '}',
    '[',
    ']',
    ',',
    '"',
    "'",
    '#',
    '?',
    '---\n',
    'kind: ',
    'apiVersion: ',
    'v1',
    'KubeletConfiguration',
    'kubelet.config.k8s.io/v1beta1',
    'syncFrequency: ',
    'maxPods: ',
    '\\',
    '!!int ',
    '!!str ',
  );
  fc.assert(
    fc.property(fc.array(piece, { minLength: 1, maxLength: 14 }), (pieces) => {
      const doc = pieces.join('');
      try {
        load(doc, { source: 'cm/victim/app-secrets:kubelet' });
      } catch (e) {
        if (!(e instanceof KubeletConfigError)) throw e;
        assert.ok(!e.message.includes(MARKER), `${JSON.stringify(doc)} → ${e.message}`);
      }
    }),
    { numRuns: 3000, seed: 23 },
  );
});
