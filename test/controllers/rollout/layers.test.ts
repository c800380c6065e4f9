// Rendering a layered rollout: the layers merged in order into one immutable, content-named ConfigMap in
// dkc-configs, decoded as the newest kubelet minor among the selected nodes and holding only what the layers set,
// and a clear reason when a layer is missing or does not decode.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ConfigMap } from '../../../src/api/types.js';
import { configMapHash } from '../../../src/controllers/rollout/confighash.js';
import {
  RENDERED_BY_LABEL,
  renderRollout as render,
  renderedStillInUse,
  renderingKubelet,
} from '../../../src/controllers/rollout/layers.js';
import { KUBELET_VERSIONS, kubeletVersion, load } from '../../../src/kubeletconfig/index.js';
import type { Node } from '../../../src/api/types.js';

const HEADER = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n';
const cm = (name: string, text: string): ConfigMap => ({
  metadata: { namespace: 'default', name },
  data: { kubelet: text },
});
const ref = (name: string, key = 'kubelet') => ({ configMap: { namespace: 'default', name, kubeletConfigKey: key } });
const store =
  (...cms: ConfigMap[]) =>
  (ns: string, name: string) =>
    cms.find((c) => c.metadata.namespace === ns && c.metadata.name === name);

const K122 = kubeletVersion('1.22');
/** The rendering as a fleet of 1.22 kubelets has it. */
const renderRollout = (rollout: string, refs: Parameters<typeof render>[1], get: Parameters<typeof render>[2]) =>
  render(rollout, refs, get, K122);
const nodeAt = (name: string, version?: string): Node =>
  ({ metadata: { name }, ...(version ? { status: { nodeInfo: { kubeletVersion: version } } } : {}) }) as Node;

const BASE = cm('base', HEADER + 'maxPods: 50\nevictionHard:\n  memory.available: 100Mi\n');
const POOL = cm('pool', HEADER + 'maxPods: 80\nevictionHard:\n  nodefs.available: 5%\n');

describe('renderRollout', () => {
  it('merges the layers in order into one immutable ConfigMap named by the content hash', () => {
    const out = renderRollout('blue', [ref('base'), ref('pool')], store(BASE, POOL));
    assert.ok('configMap' in out);
    const rendered = out.configMap;
    const config = load(rendered.data!['kubelet']!).config;
    assert.equal(config.maxPods, 80);
    assert.deepEqual(Object.keys(config.evictionHard ?? {}).sort(), ['memory.available', 'nodefs.available']);
    assert.equal(rendered.immutable, true);
    assert.equal(rendered.metadata.namespace, 'dkc-configs');
    assert.deepEqual(rendered.metadata.labels, { [RENDERED_BY_LABEL]: 'blue' });
    assert.equal(
      rendered.metadata.name,
      `blue-${configMapHash({ metadata: { name: 'blue' }, data: rendered.data!, immutable: true })}`,
    );
  });

  it('gives the same name for the same layers, another for another order', () => {
    const a = renderRollout('blue', [ref('base'), ref('pool')], store(BASE, POOL));
    const b = renderRollout('blue', [ref('base'), ref('pool')], store(structuredClone(BASE), structuredClone(POOL)));
    const c = renderRollout('blue', [ref('pool'), ref('base')], store(BASE, POOL));
    assert.ok('configMap' in a && 'configMap' in b && 'configMap' in c);
    assert.equal(a.configMap.metadata.name, b.configMap.metadata.name);
    assert.notEqual(a.configMap.metadata.name, c.configMap.metadata.name);
  });

  it('names a missing layer, a missing key and a layer that does not decode', () => {
    const missing = renderRollout('blue', [ref('base'), ref('pool')], store(BASE));
    assert.deepEqual(missing, {
      failure: {
        reason: 'LayerNotFound',
        message: 'layer ConfigMap default/pool not found: the layers cannot be rendered',
      },
    });
    const noKey = renderRollout('blue', [ref('base', 'other')], store(BASE));
    assert.ok('failure' in noKey && noKey.failure.message.includes('has no key "other"'));
    const bad = renderRollout('blue', [ref('base'), ref('pool')], store(BASE, cm('pool', HEADER + 'maxPods: many\n')));
    assert.ok('failure' in bad);
    assert.equal(bad.failure.reason, 'RenderFailed');
    assert.match(
      bad.failure.message,
      /^the layers cannot be rendered: cm\/default\/pool:kubelet: failed to decode: .*MaxPods/,
    );
  });
});

describe("renderRollout as the selected nodes' kubelets", () => {
  it('decodes as the newest minor among the selected nodes; none reported is 1.22; no node selected is the newest known', () => {
    assert.equal(renderingKubelet([nodeAt('a', 'v1.30.2'), nodeAt('b', 'v1.32.0'), nodeAt('c')]).minor, 32);
    assert.equal(renderingKubelet([nodeAt('a'), nodeAt('b', 'v1.22.17-dkc')]).minor, 22);
    assert.equal(renderingKubelet([]).minor, Number(KUBELET_VERSIONS[KUBELET_VERSIONS.length - 1]!.split('.')[1]));
  });

  it('keeps a field newer than 1.22 that the rendering minor knows, and writes no default of any minor', () => {
    const pool = cm('pool', HEADER + 'singleProcessOOMKill: true\ncontainerLogMaxWorkers: 2\n');
    const as132 = render('blue', [ref('base'), ref('pool')], store(BASE, pool), kubeletVersion('1.32'));
    assert.ok('configMap' in as132);
    const text = as132.configMap.data!['kubelet']!;
    const doc = kubeletVersion('1.32').decode(text).config as Record<string, unknown>;
    assert.deepEqual(
      Object.keys(doc)
        .filter((k) => k !== 'kind' && k !== 'apiVersion')
        .sort(),
      ['containerLogMaxWorkers', 'evictionHard', 'maxPods', 'singleProcessOOMKill'],
      'only what the layers set: each kubelet defaults the rest as its own minor',
    );
    assert.equal(doc['singleProcessOOMKill'], true);
    const as122 = render('blue', [ref('base'), ref('pool')], store(BASE, pool), K122);
    assert.ok('configMap' in as122);
    assert.doesNotMatch(
      as122.configMap.data!['kubelet']!,
      /singleProcessOOMKill|containerLogMaxWorkers/,
      '1.22 does not know them',
    );
  });
});

describe('renderedStillInUse', () => {
  const cm = (name: string, owners: string[], namespace = 'dkc-configs'): ConfigMap => ({
    metadata: {
      name,
      namespace,
      ownerReferences: owners.map((uid) => ({
        apiVersion: 'dkc.io/v1alpha1',
        kind: 'NodeConfigRollout',
        name: 'r',
        uid,
      })),
    },
  });
  const source = (name: string, namespace = 'dkc-configs') => ({
    configMap: { namespace, name, kubeletConfigKey: 'kubelet' },
  });
  const nodes: Node[] = [
    { metadata: { name: 'n1' }, spec: { configSource: source('assigned') } },
    { metadata: { name: 'n2' }, status: { config: { active: source('active'), lastKnownGood: source('lkg') } } },
    { metadata: { name: 'n3' }, spec: { configSource: source('elsewhere', 'default') } },
  ];

  it('keeps what a node is assigned, runs or falls back to, and only what the deleted rollout owns', () => {
    const seen = [
      cm('assigned', ['u1']),
      cm('active', ['u1', 'other']),
      cm('lkg', ['u1']),
      cm('unused', ['u1']),
      cm('someone-elses', ['u2']),
      cm('elsewhere', ['u1'], 'default'),
    ];
    assert.deepEqual(
      renderedStillInUse('u1', seen, nodes).map((c) => c.metadata.name),
      ['assigned', 'active', 'lkg'],
    );
  });

  it('lets everything go when no node uses it', () => {
    assert.deepEqual(renderedStillInUse('u1', [cm('a', ['u1'])], []), []);
  });
});
