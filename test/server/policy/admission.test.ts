// NodeConfigPolicy admission over fake server reads: which config stands for what a node runs (active ConfigMap,
// /configz, defaults), what is not a policy matter, and what a request costs when there is nothing to judge.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StatusError } from '../../../src/api/errors.js';
import type { KubeObject } from '../../../src/api/types.js';
import type { AdmissionAttributes, Authorizer, ServerReads } from '../../../src/server/authz.js';
import { kubeletVersion } from '../../../src/kubeletconfig/index.js';
import { CONFIG_FLAGS_ANNOTATION } from '../../../src/nodepolicy/flags.js';
import { nodeConfigPolicy } from '../../../src/server/policy/admission.js';
import { ConfigReader, configMapRefOf } from '../../../src/server/policy/configs.js';
import { nodes } from '../../../src/server/builtins.js';
import type { ResourceDef } from '../../../src/server/resourcedef.js';

const doc = (extra: string) => `apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n${extra}`;
const cm = (name: string, text: string, binary = false): KubeObject => ({
  metadata: { name, namespace: 'kube-system' },
  ...(binary ? { binaryData: { kubelet: Buffer.from(text).toString('base64') } } : { data: { kubelet: text } }),
});
const ref = (name: string) => ({ configMap: { namespace: 'kube-system', name, kubeletConfigKey: 'kubelet' } });

class FakeReads implements ServerReads {
  readonly calls: string[] = [];
  constructor(
    private readonly objects: { policies?: KubeObject[]; configMaps?: KubeObject[]; nodes?: KubeObject[] },
    private readonly configz: (node: string) => string = () => {
      throw new Error('connection refused');
    },
  ) {}
  get(_group: string, plural: string, namespace: string, name: string): Promise<KubeObject | undefined> {
    this.calls.push(`get ${plural} ${name}`);
    return Promise.resolve(
      (this.objects.configMaps ?? []).find((o) => o.metadata.name === name && o.metadata.namespace === namespace),
    );
  }
  list(_group: string, plural: string): Promise<KubeObject[]> {
    this.calls.push(`list ${plural}`);
    return Promise.resolve(plural === 'nodes' ? (this.objects.nodes ?? []) : (this.objects.policies ?? []));
  }
  nodeGet(node: KubeObject, path: string): Promise<string> {
    this.calls.push(`nodeGet ${node.metadata.name ?? ''} ${path}`);
    try {
      return Promise.resolve(this.configz(node.metadata.name ?? ''));
    } catch (err) {
      return Promise.reject(err);
    }
  }
}

const policy = (name: string, enforcement: 'Deny' | 'Warn'): KubeObject => ({
  metadata: { name },
  spec: { allowedFields: ['maxPods'], bounds: { maxPods: { maximum: 100 } }, enforcement },
});
const node = (name: string, source: unknown, active?: unknown, labels: Record<string, string> = {}): KubeObject => ({
  metadata: { name, labels },
  spec: source ? { configSource: source } : {},
  ...(active ? { status: { config: { active } } } : {}),
});

function attrs(
  object: KubeObject,
  oldObject: KubeObject | undefined,
  resource: ResourceDef = nodes,
): AdmissionAttributes {
  return {
    user: { name: 'admin', groups: ['system:masters'] },
    operation: oldObject ? 'UPDATE' : 'CREATE',
    resource,
    subresource: '',
    namespace: object.metadata.namespace ?? '',
    name: object.metadata.name ?? '',
    object,
    ...(oldObject ? { oldObject } : {}),
    dryRun: false,
    warnings: [],
  };
}

/** The agent's default kubelet, which a Node reporting none is taken for. */
const kv = kubeletVersion('1.22');
const rollouts = { ...nodes, group: 'dkc.io', plural: 'nodeconfigrollouts', kind: 'NodeConfigRollout' };
const configmaps = { ...nodes, group: '', plural: 'configmaps', kind: 'ConfigMap', namespaced: true } as ResourceDef;

describe('what a node runs now', () => {
  it('its active ConfigMap, else its /configz, else the defaults', async () => {
    const reads = new FakeReads({ configMaps: [cm('a', doc('maxPods: 42\n'), true)] }, (n) => {
      if (n === 'up') return JSON.stringify({ kubeletconfig: { maxPods: 77 } });
      throw new Error('connection refused');
    });
    const reader = new ConfigReader(reads);
    assert.equal((await reader.current(node('n', null, ref('a')), kv)).maxPods, 42);
    assert.equal(
      (await reader.current(node('up', null, ref('gone')), kv)).maxPods,
      77,
      'an active ConfigMap that is gone: /configz',
    );
    assert.equal((await reader.current(node('down', null), kv)).maxPods, 110, 'no answer: the defaults');
    assert.deepEqual(
      reads.calls.filter((c) => c.startsWith('nodeGet')),
      ['nodeGet up /configz', 'nodeGet down /configz'],
    );
  });

  it('reads the 1.8-alpha configMapRef with its fixed key, and a missing or bad target as undefined', async () => {
    assert.deepEqual(configMapRefOf({ configMapRef: { namespace: 'kube-system', name: 'x' } }), {
      namespace: 'kube-system',
      name: 'x',
      kubeletConfigKey: 'kubelet',
    });
    assert.equal(configMapRefOf({}), undefined);
    const reader = new ConfigReader(new FakeReads({ configMaps: [cm('bad', 'kind: Nope\n')] }));
    assert.equal(
      await reader.configMap({ namespace: 'kube-system', name: 'bad', kubeletConfigKey: 'kubelet' }, kv),
      undefined,
    );
    assert.equal(
      await reader.configMap({ namespace: 'kube-system', name: 'none', kubeletConfigKey: 'kubelet' }, kv),
      undefined,
    );
  });
});

describe('NodeConfigPolicy admission', () => {
  const configMaps = [
    cm('big', doc('maxPods: 300\n')),
    cm('base', doc('maxPods: 50\n')),
    cm('layer', doc('maxPods: 200\n')),
  ];

  it('Deny refuses with a 403 Status naming the policy; Warn fills the warnings', async () => {
    const deny = nodeConfigPolicy(() => new FakeReads({ policies: [policy('p', 'Deny')], configMaps }));
    await assert.rejects(
      Promise.resolve(deny.validate!(attrs(node('n1', ref('big')), node('n1', null)))),
      (err: unknown) => {
        assert.ok(err instanceof StatusError);
        assert.equal(err.code, 403);
        assert.equal(
          err.message,
          'nodes "n1" is forbidden: NodeConfigPolicy "p" denies the config change on node "n1": maxPods: 110 -> 300 (above the maximum 100)',
        );
        return true;
      },
    );
    const warn = nodeConfigPolicy(() => new FakeReads({ policies: [policy('p', 'Warn')], configMaps }));
    const a = attrs(node('n1', ref('big')), node('n1', null));
    await warn.validate!(a);
    await warn.validate!(a);
    assert.deepEqual(
      a.warnings,
      ['NodeConfigPolicy "p" (Warn) on node "n1": maxPods: 110 -> 300 (above the maximum 100)'],
      'a retried update warns once',
    );
  });

  it('costs one list when there is no policy, and nothing when neither the source nor the labels change', async () => {
    const reads = new FakeReads({ configMaps });
    const plugin = nodeConfigPolicy(() => reads);
    await plugin.validate!(attrs(node('n1', ref('big')), node('n1', null)));
    assert.deepEqual(reads.calls, ['list nodeconfigpolicies']);
    await plugin.validate!(attrs(node('n1', ref('big')), node('n1', ref('big'))));
    await plugin.validate!(attrs(node('n1', null), node('n1', ref('big'))));
    assert.deepEqual(
      reads.calls,
      ['list nodeconfigpolicies'],
      'a status-only write and a return to the local config read nothing',
    );
    await plugin.validate!(attrs(node('n1', ref('big'), undefined, { new: 'label' }), node('n1', ref('big'))));
    await plugin.validate!(attrs(cm('big', doc('maxPods: 301\n')), cm('big', doc('maxPods: 300\n')), configmaps));
    assert.deepEqual(
      reads.calls,
      ['list nodeconfigpolicies', 'list nodeconfigpolicies', 'list nodeconfigpolicies'],
      'a relabel, a ConfigMap write: the policies only',
    );
  });

  it('a missing target ConfigMap is not a policy matter', async () => {
    const plugin = nodeConfigPolicy(() => new FakeReads({ policies: [policy('p', 'Deny')], configMaps }));
    await assert.doesNotReject(async () => plugin.validate!(attrs(node('n1', ref('absent')), node('n1', null))));
  });

  it('judges a rollout for every node it selects, rendering layers; later writes that keep the target are not judged', async () => {
    const reads = new FakeReads({
      policies: [policy('p', 'Deny')],
      configMaps,
      nodes: [node('n1', null, undefined, { pool: 'a' }), node('n2', null, undefined, { pool: 'b' })],
    });
    const plugin = nodeConfigPolicy(() => reads);
    const layered = {
      metadata: { name: 'r' },
      spec: {
        nodeSelector: { matchLabels: { pool: 'a' } },
        layers: [{ configMap: ref('base').configMap }, { configMap: ref('layer').configMap }],
      },
    };
    await assert.rejects(
      Promise.resolve(plugin.validate!(attrs(layered, undefined, rollouts))),
      /nodeconfigrollouts.dkc.io "r" is forbidden: .* on node "n1": maxPods: 110 -> 200 \(above the maximum 100\)$/,
    );
    assert.ok(!reads.calls.includes('nodeGet n2 /configz'), 'an unselected node is not read');
    const before = reads.calls.length;
    await plugin.validate!(attrs({ ...layered, spec: { ...layered.spec, paused: true } }, layered, rollouts));
    assert.equal(reads.calls.length, before);
  });
});

describe('NodeConfigPolicy admission: flags, ConfigMap writes, relabels and the flags record', () => {
  const localFile = doc('authorization:\n  mode: Webhook\n');
  const flagged = (n: KubeObject, flags: string[]): KubeObject => ({
    ...n,
    metadata: { ...n.metadata, annotations: { [CONFIG_FLAGS_ANNOTATION]: JSON.stringify({ flags }) } },
  });
  const fleetPolicy: KubeObject = {
    metadata: { name: 'fleet' },
    spec: { nodeSelector: { matchLabels: { pool: 'blue' } }, allowedFields: ['eventRecordQPS'], enforcement: 'Deny' },
  };
  const configz = JSON.stringify({
    kubeletconfig: {
      address: '127.0.0.1',
      port: 36001,
      authorization: { mode: 'Webhook' },
      featureGates: { DynamicKubeletConfig: true },
    },
  });
  const upFlags = ['--address=127.0.0.1', '--port=36001', '--feature-gates=DynamicKubeletConfig=true'];
  const blue = { pool: 'blue' };

  it("compares with the node's flags applied to both sides: a fleet-wide ConfigMap changes only what it changes", async () => {
    const configMaps = [cm('fleet', doc('authorization:\n  mode: Webhook\neventRecordQPS: 7\n'))];
    const reads = new FakeReads({ policies: [fleetPolicy], configMaps }, () => configz);
    const plugin = nodeConfigPolicy(() => reads);
    const stored = flagged(node('n1', null, undefined, blue), upFlags);
    await plugin.validate!(attrs({ ...stored, spec: { configSource: ref('fleet') } }, stored));
    const unrecorded = node('n1', null, undefined, blue);
    await assert.rejects(
      Promise.resolve(plugin.validate!(attrs({ ...unrecorded, spec: { configSource: ref('fleet') } }, unrecorded))),
      /address: "127.0.0.1" -> "0.0.0.0" \(not in allowedFields\), port: 36001 -> 10250 \(not in allowedFields\), featureGates.DynamicKubeletConfig: true -> \(unset\)/,
    );
  });

  it('a ConfigMap write is judged by its new content for every governed node assigned it; other writes read no node', async () => {
    const nodesList = [
      flagged(node('n1', ref('fleet'), undefined, blue), upFlags),
      node('n2', ref('other'), undefined, blue),
      node('n3', ref('fleet'), undefined, { pool: 'green' }),
    ];
    const reads = new FakeReads(
      { policies: [fleetPolicy], configMaps: [cm('fleet', localFile)], nodes: nodesList },
      () => configz,
    );
    const plugin = nodeConfigPolicy(() => reads);
    const next = cm('fleet', doc('authorization:\n  mode: Webhook\ncontainerLogMaxFiles: 7\n'));
    await assert.rejects(
      Promise.resolve(plugin.validate!(attrs(next, cm('fleet', localFile), configmaps))),
      (err: unknown) => {
        assert.ok(err instanceof StatusError);
        assert.equal(
          err.message,
          'configmaps "fleet" is forbidden: NodeConfigPolicy "fleet" denies the config change on node "n1": containerLogMaxFiles: 5 -> 7 (not in allowedFields)',
        );
        return true;
      },
    );
    assert.deepEqual(
      reads.calls.filter((c) => c.startsWith('nodeGet')),
      ['nodeGet n1 /configz'],
      'only the governed node assigned it is read',
    );
    await assert.rejects(
      Promise.resolve(plugin.validate!(attrs(next, undefined, configmaps))),
      /configmaps "fleet" is forbidden/,
      'a create the same',
    );
    const calls = reads.calls.length;
    await plugin.validate!(
      attrs(
        { ...cm('fleet', localFile), metadata: { name: 'fleet', namespace: 'kube-system', labels: { a: 'b' } } },
        cm('fleet', localFile),
        configmaps,
      ),
    );
    assert.equal(reads.calls.length, calls, 'a write that keeps the data is not judged');
    await plugin.validate!(
      attrs(
        cm('fleet', doc('authorization:\n  mode: Webhook\neventRecordQPS: 7\n')),
        cm('fleet', localFile),
        configmaps,
      ),
    );
  });

  it('a relabel is judged by the policies it brings the node under, against what the node runs', async () => {
    const configMaps = [cm('big', doc('maxPods: 300\n')), cm('files', doc('containerLogMaxFiles: 7\n'))];
    const reads = new FakeReads({
      policies: [
        policy('p', 'Deny'),
        { ...fleetPolicy, spec: { ...(fleetPolicy['spec'] as object), bounds: { maxPods: { maximum: 250 } } } },
      ],
      configMaps,
    });
    const plugin = nodeConfigPolicy(() => reads);
    const running = (cmName: string) => node('n1', ref(cmName), ref(cmName));
    const relabelled = (n: KubeObject): KubeObject => ({ ...n, metadata: { ...n.metadata, labels: blue } });
    await assert.rejects(
      Promise.resolve(plugin.validate!(attrs(relabelled(running('big')), running('big')))),
      /NodeConfigPolicy "fleet" denies the config change on node "n1": maxPods: 300 -> 300 \(above the maximum 250\)$/,
    );
    await plugin.validate!(attrs(relabelled(running('files')), running('files')));
  });

  it("reads both sides as the node's kubelet minor does: its defaults are no change", async () => {
    const configMaps = [cm('pods', doc('maxPods: 120\n'))];
    // A 1.31 kubelet on its local config: /configz answers 1.31's defaults (kubeAPIQPS 50, where 1.22's is 5).
    const reads = new FakeReads(
      { policies: [{ metadata: { name: 'pods' }, spec: { allowedFields: ['maxPods'] } }], configMaps },
      () => JSON.stringify({ kubeletconfig: { kubeAPIQPS: 50, kubeAPIBurst: 100 } }),
    );
    const plugin = nodeConfigPolicy(() => reads);
    const as = (version: string): KubeObject => ({
      ...node('n1', null),
      status: { nodeInfo: { kubeletVersion: version } },
    });
    await plugin.validate!(attrs({ ...as('v1.31.0'), spec: { configSource: ref('pods') } }, as('v1.31.0')));
    await assert.rejects(
      Promise.resolve(
        plugin.validate!(attrs({ ...as('v1.22.17-dkc'), spec: { configSource: ref('pods') } }, as('v1.22.17-dkc'))),
      ),
      /kubeAPIQPS: 50 -> 5 \(not in allowedFields\)/,
    );
  });

  it('only the node itself sets, changes or removes its config-flags record', async () => {
    const plugin = nodeConfigPolicy(() => new FakeReads({}));
    const asNode = (a: AdmissionAttributes, name: string): AdmissionAttributes => ({
      ...a,
      user: { name: `system:node:${name}`, groups: ['system:nodes', 'system:authenticated'] },
    });
    const bare = node('n1', null);
    const recordedNode = flagged(bare, upFlags);
    await plugin.validate!(asNode(attrs(recordedNode, bare), 'n1'));
    await plugin.validate!(asNode(attrs(recordedNode, undefined), 'n1'));
    // Carried unchanged by anyone.
    await plugin.validate!(
      attrs({ ...recordedNode, metadata: { ...recordedNode.metadata, labels: { a: 'b' } } }, recordedNode),
    );
    for (const [a, why] of [
      [attrs(flagged(bare, []), recordedNode), 'changed by an administrator'],
      [attrs(bare, recordedNode), 'removed by an administrator'],
      [attrs(recordedNode, undefined), 'set on create by an administrator'],
      [asNode(attrs(flagged(bare, []), recordedNode), 'n2'), 'changed by another node'],
    ] as const) {
      await assert.rejects(Promise.resolve(plugin.validate!(a)), (err: unknown) => {
        assert.ok(err instanceof StatusError, why);
        assert.equal(
          err.message,
          'nodes "n1" is forbidden: only node "n1" may set the annotation dkc.io/config-flags on its Node',
          why,
        );
        return true;
      });
    }
  });
});

/** An authorizer that allows exactly the requests listed, as `verb resource[/subresource] namespace/name`. */
const allowing = (...allowed: string[]): Authorizer => ({
  authorize: (a) => {
    const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
    return {
      decision: allowed.includes(`${a.verb} ${resource} ${a.namespace}/${a.name}`) ? 'allow' : 'deny',
      reason: '',
    };
  },
});

describe('what a refusal tells the requester', () => {
  // n1 runs ConfigMap a (42), n2 its local config (/configz: 77), n3 does not answer (the defaults: 110).
  const fleet = () =>
    new FakeReads(
      {
        policies: [policy('deny', 'Deny')],
        configMaps: [cm('a', doc('maxPods: 42\n')), cm('target', doc('maxPods: 50\n'))],
        nodes: [node('n1', ref('target'), ref('a')), node('n2', ref('target')), node('n3', ref('target'))],
      },
      (n) => {
        if (n === 'n2') return JSON.stringify({ kubeletconfig: { maxPods: 77 } });
        throw new Error('connection refused');
      },
    );
  const edit = (): AdmissionAttributes => {
    const old = cm('target', doc('maxPods: 50\n'));
    return { ...attrs(cm('target', doc('maxPods: 300\n')), old, configmaps), user: { name: 'eve', groups: [] } };
  };
  const refusal = async (authorizer: Authorizer): Promise<string> => {
    try {
      await nodeConfigPolicy(() => fleet(), 'node', authorizer).validate!(edit());
    } catch (err) {
      assert.ok(err instanceof StatusError);
      return err.message;
    }
    assert.fail('admitted');
  };
  const clause = (where: string, old: string) =>
    `NodeConfigPolicy "deny" denies the config change on ${where}: maxPods: ${old} -> 300 (above the maximum 100)`;
  const head = 'configmaps "target" is forbidden: ';

  it('names nodes and quotes running values to one who may list nodes and read where each came from', async () => {
    assert.equal(
      await refusal(allowing('list nodes /', 'get configmaps kube-system/a', 'get nodes/proxy /n2')),
      head + [clause('node "n1"', '42'), clause('node "n2"', '77'), clause('node "n3"', '110')].join('; '),
    );
  });

  it('to one who may not list nodes, counts them; withholds a value read from what the requester may not read', async () => {
    assert.equal(
      await refusal(allowing()),
      head + [clause('2 nodes', '(not shown)'), clause('1 node', '110')].join('; '),
    );
    assert.equal(
      await refusal(allowing('list nodes /', 'get nodes/proxy /n2')),
      head + [clause('node "n1"', '(not shown)'), clause('node "n2"', '77'), clause('node "n3"', '110')].join('; '),
    );
  });
});
