// KubeletVersionCompatibility admission over fake server reads: a rollout, a direct assignment (Node or NodeConfig)
// and a ConfigMap change are refused with 403 when a node's kubelet minor cannot run the config, naming the field,
// the nodes and their versions; skipIncompatible, a config every minor or no minor accepts, and writes that keep the
// target pass, the last without a read.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StatusError } from '../../../src/api/errors.js';
import type { KubeObject } from '../../../src/api/types.js';
import type { AdmissionAttributes, Authorizer, ServerReads } from '../../../src/server/authz.js';
import { kubeletVersionCompatibility } from '../../../src/server/kubeletcompat/admission.js';
import { nodes as nodesDef } from '../../../src/server/builtins.js';
import type { ResourceDef } from '../../../src/server/resourcedef.js';

const HEAD = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n';
/** singleProcessOOMKill arrived in 1.32 (config/v1beta1/types.go at kubernetes/kubelet v0.32.0). */
const NEWER = `${HEAD}singleProcessOOMKill: true\n`;
const EVERYWHERE = `${HEAD}kubeAPIQPS: 20\n`;
const NOWHERE = `${HEAD}kubeAPIQPS: -1\n`;

const cm = (name: string, text: string): KubeObject => ({
  metadata: { name, namespace: 'kube-system' },
  data: { kubelet: text },
});
const ref = (name: string) => ({ configMap: { namespace: 'kube-system', name, kubeletConfigKey: 'kubelet' } });
const node = (
  name: string,
  version: string | undefined,
  source?: unknown,
  labels: Record<string, string> = { pool: 'a' },
): KubeObject => ({
  metadata: { name, labels },
  spec: source ? { configSource: source } : {},
  status: version ? { nodeInfo: { kubeletVersion: version } } : {},
});
const FLEET = [node('node-1', 'v1.22.17-dkc'), node('node-2', 'v1.30.0'), node('node-3', 'v1.32.0')];

class FakeReads implements ServerReads {
  readonly calls: string[] = [];
  constructor(
    private readonly objects: { configMaps?: KubeObject[]; nodes?: KubeObject[]; nodeConfigs?: KubeObject[] },
  ) {}
  get(_group: string, plural: string, namespace: string, name: string): Promise<KubeObject | undefined> {
    this.calls.push(`get ${plural} ${name}`);
    const pool = plural === 'nodes' ? this.objects.nodes : this.objects.configMaps;
    return Promise.resolve(
      (pool ?? []).find((o) => o.metadata.name === name && (o.metadata.namespace ?? '') === namespace),
    );
  }
  list(_group: string, plural: string): Promise<KubeObject[]> {
    this.calls.push(`list ${plural}`);
    return Promise.resolve((plural === 'nodes' ? this.objects.nodes : this.objects.nodeConfigs) ?? []);
  }
  nodeGet(): Promise<string> {
    return Promise.reject(new Error('not asked'));
  }
}

const rollouts = { ...nodesDef, group: 'dkc.io', plural: 'nodeconfigrollouts', kind: 'NodeConfigRollout' };
const nodeConfigs = { ...nodesDef, group: 'dkc.io', plural: 'nodeconfigs', kind: 'NodeConfig' };
const configmaps = { ...nodesDef, group: '', plural: 'configmaps', kind: 'ConfigMap', namespaced: true } as ResourceDef;

function attrs(object: KubeObject, oldObject: KubeObject | undefined, resource: ResourceDef): AdmissionAttributes {
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
  };
}

const rollout = (spec: Record<string, unknown>): KubeObject => ({
  metadata: { name: 'r' },
  spec: { configSource: ref('newer'), nodeSelector: {}, ...spec },
});

async function refused(reads: FakeReads, a: AdmissionAttributes): Promise<string> {
  const plugin = kubeletVersionCompatibility(() => reads);
  try {
    await plugin.validate!(a);
  } catch (err) {
    assert.ok(err instanceof StatusError);
    assert.equal(err.status.code, 403);
    assert.equal(err.status.reason, 'Forbidden');
    return err.message;
  }
  assert.fail('admitted');
}

const admits = (reads: FakeReads, a: AdmissionAttributes): Promise<void> =>
  Promise.resolve(kubeletVersionCompatibility(() => reads).validate!(a));

describe('a NodeConfigRollout', () => {
  const reads = (text = NEWER): FakeReads => new FakeReads({ configMaps: [cm('newer', text)], nodes: FLEET });

  it('created with a field the 1.22 and 1.30 kubelets lack is refused, naming the field, the nodes and their versions', async () => {
    assert.equal(
      await refused(reads(), attrs(rollout({}), undefined, rollouts)),
      'nodeconfigrollouts.dkc.io "r" is forbidden: the config does not suit the kubelet of some selected nodes: ' +
        'kubelet 1.22 (node-1): unknown field singleProcessOOMKill; kubelet 1.30 (node-2): unknown field singleProcessOOMKill; ' +
        'set spec.strategy.skipIncompatible to leave them out',
    );
  });

  it('selecting only nodes that can run it, or with skipIncompatible, is admitted (the latter without a read)', async () => {
    await admits(reads(), attrs(rollout({ nodeSelector: { matchLabels: { pool: 'new' } } }), undefined, rollouts));
    const r = reads();
    await admits(r, attrs(rollout({ strategy: { skipIncompatible: true } }), undefined, rollouts));
    assert.deepEqual(r.calls, []);
  });

  it('a config every minor accepts, and one no minor accepts, are no version matter', async () => {
    await admits(reads(EVERYWHERE), attrs(rollout({}), undefined, rollouts));
    await admits(reads(NOWHERE), attrs(rollout({}), undefined, rollouts));
  });

  it('an update that keeps the target reads nothing; turning skipIncompatible off is judged again', async () => {
    const r = reads();
    const skipping = rollout({ strategy: { skipIncompatible: true } });
    await admits(
      r,
      attrs({ ...skipping, spec: { ...(skipping['spec'] as object), paused: true } }, skipping, rollouts),
    );
    assert.deepEqual(r.calls, []);
    await assert.rejects(
      admits(r, attrs(rollout({ strategy: { skipIncompatible: false } }), skipping, rollouts)),
      /kubelet 1.22 \(node-1\)/,
    );
  });
});

describe('a direct assignment', () => {
  it("a Node's spec.configSource set to a config its kubelet cannot run is refused", async () => {
    const reads = new FakeReads({ configMaps: [cm('newer', NEWER), cm('fine', EVERYWHERE)] });
    const before = node('node-2', 'v1.30.0');
    assert.equal(
      await refused(reads, attrs(node('node-2', 'v1.30.0', ref('newer')), before, nodesDef)),
      'nodes "node-2" is forbidden: the config does not suit the node\'s kubelet: kubelet 1.30 (node-2): unknown field singleProcessOOMKill',
    );
    await admits(reads, attrs(node('node-2', 'v1.30.0', ref('fine')), before, nodesDef));
    await admits(reads, attrs(node('node-3', 'v1.32.0', ref('newer')), node('node-3', 'v1.32.0'), nodesDef));
  });

  it("a NodeConfig's spec.configSource is judged by its Node's kubelet version", async () => {
    const reads = new FakeReads({ configMaps: [cm('newer', NEWER)], nodes: FLEET });
    const nc = (name: string, source?: unknown): KubeObject => ({
      metadata: { name },
      spec: source ? { configSource: source } : {},
    });
    assert.match(
      await refused(reads, attrs(nc('node-1', ref('newer')), nc('node-1'), nodeConfigs)),
      /^nodeconfigs.dkc.io "node-1" is forbidden: .*kubelet 1.22 \(node-1\): unknown field singleProcessOOMKill$/,
    );
    await admits(reads, attrs(nc('node-3', ref('newer')), nc('node-3'), nodeConfigs));
  });
});

describe('a ConfigMap change', () => {
  it('refused when a node assigned it cannot run the new content; a write that keeps the data reads nothing', async () => {
    const assigned = [
      node('node-1', 'v1.22.17-dkc', ref('shared')),
      node('node-3', 'v1.32.0', ref('shared')),
      node('node-2', 'v1.30.0', ref('other')),
    ];
    const reads = new FakeReads({ nodes: assigned });
    const old = cm('shared', EVERYWHERE);
    assert.equal(
      await refused(reads, attrs(cm('shared', NEWER), old, configmaps)),
      'configmaps "shared" is forbidden: the new content does not suit the kubelet of nodes assigned it: kubelet 1.22 (node-1): unknown field singleProcessOOMKill',
    );
    const quiet = new FakeReads({ nodes: assigned });
    await admits(quiet, attrs({ ...old, metadata: { ...old.metadata, labels: { a: 'b' } } }, old, configmaps));
    assert.deepEqual(quiet.calls, []);
  });
});

describe('what a refusal tells the requester', () => {
  const assigned = [
    node('node-1', 'v1.22.17-dkc', ref('shared')),
    node('node-4', 'v1.22.17-dkc', ref('shared')),
    node('node-2', 'v1.30.0', ref('shared')),
    node('node-3', 'v1.32.0', ref('shared')),
  ];
  const mayList = (allowed: boolean): Authorizer => ({
    authorize: (a) => ({
      decision: allowed && a.verb === 'list' && a.resource === 'nodes' && a.name === '' ? 'allow' : 'deny',
      reason: '',
    }),
  });
  const refusal = async (authorizer: Authorizer): Promise<string> => {
    const a = {
      ...attrs(cm('shared', NEWER), cm('shared', EVERYWHERE), configmaps),
      user: { name: 'eve', groups: [] },
    };
    try {
      await kubeletVersionCompatibility(() => new FakeReads({ nodes: assigned }), 'node', authorizer).validate!(a);
    } catch (err) {
      assert.ok(err instanceof StatusError);
      return err.message;
    }
    assert.fail('admitted');
  };

  it('names nodes and kubelet versions only to one who may list nodes; anyone else gets counts', async () => {
    assert.equal(
      await refusal(mayList(true)),
      'configmaps "shared" is forbidden: the new content does not suit the kubelet of nodes assigned it: ' +
        'kubelet 1.22 (node-1, node-4): unknown field singleProcessOOMKill; kubelet 1.30 (node-2): unknown field singleProcessOOMKill',
    );
    assert.equal(
      await refusal(mayList(false)),
      'configmaps "shared" is forbidden: the new content does not suit the kubelet of nodes assigned it: ' +
        'unknown field singleProcessOOMKill (3 nodes)',
    );
  });
});
