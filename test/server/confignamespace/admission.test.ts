// A NodeConfigRollout that names a ConfigMap outside dkc's config namespace is accepted with a warning: a real
// cluster's nodes read ConfigMaps in that namespace only. One warning per ConfigMap newly named, none for a status
// write or an update that names nothing new.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { configNamespaceWarnings, rolloutConfigNamespace } from '../../../src/server/confignamespace/admission.js';
import type { AdmissionAttributes } from '../../../src/server/authz.js';
import type { ResourceDef } from '../../../src/server/resourcedef.js';
import type { KubeObject } from '../../../src/api/types.js';

const ROLLOUTS = { group: 'dkc.io', plural: 'nodeconfigrollouts', kind: 'NodeConfigRollout' } as ResourceDef;
const ref = (namespace: string, name: string) => ({ configMap: { namespace, name, kubeletConfigKey: 'kubelet' } });
const rollout = (spec: object): KubeObject => ({
  apiVersion: 'dkc.io/v1alpha1',
  kind: 'NodeConfigRollout',
  metadata: { name: 'r1' },
  spec,
});

const attrs = (over: Partial<AdmissionAttributes>): AdmissionAttributes => ({
  user: { name: 'alice', groups: ['system:authenticated'] },
  operation: 'CREATE',
  resource: ROLLOUTS,
  subresource: '',
  namespace: '',
  name: 'r1',
  dryRun: false,
  ...over,
});

describe('RolloutConfigNamespace admission', () => {
  const cases: { what: string; a: AdmissionAttributes; warns: string[] }[] = [
    {
      what: 'a create in dkc-configs',
      a: attrs({ object: rollout({ configSource: ref('dkc-configs', 'c') }) }),
      warns: [],
    },
    {
      what: 'a create naming kube-system',
      a: attrs({ object: rollout({ configSource: ref('kube-system', 'coredns') }) }),
      warns: [
        'spec.configSource.configMap names ConfigMap kube-system/coredns, outside dkc-configs: on a real cluster nodes may read ConfigMaps in dkc-configs only (deploy/node-daemon/rbac.yaml), so no node could download it; create it in dkc-configs',
      ],
    },
    {
      what: 'layers, one of them elsewhere',
      a: attrs({ object: rollout({ layers: [ref('dkc-configs', 'base'), ref('pools', 'blue')] }) }),
      warns: [
        'spec.layers[1].configMap names ConfigMap pools/blue, outside dkc-configs: on a real cluster nodes may read ConfigMaps in dkc-configs only (deploy/node-daemon/rbac.yaml), so no node could download it; create it in dkc-configs',
      ],
    },
    {
      what: 'an update that names nothing new (a pause)',
      a: attrs({
        operation: 'UPDATE',
        object: rollout({ configSource: ref('kube-system', 'c'), paused: true }),
        oldObject: rollout({ configSource: ref('kube-system', 'c') }),
      }),
      warns: [],
    },
    {
      what: 'an update that moves the target out',
      a: attrs({
        operation: 'UPDATE',
        object: rollout({ configSource: ref('default', 'd') }),
        oldObject: rollout({ configSource: ref('dkc-configs', 'c') }),
      }),
      warns: [
        'spec.configSource.configMap names ConfigMap default/d, outside dkc-configs: on a real cluster nodes may read ConfigMaps in dkc-configs only (deploy/node-daemon/rbac.yaml), so no node could download it; create it in dkc-configs',
      ],
    },
    {
      what: 'a status write',
      a: attrs({ operation: 'UPDATE', subresource: 'status', object: rollout({ configSource: ref('default', 'd') }) }),
      warns: [],
    },
    {
      what: 'another kind',
      a: attrs({
        resource: { group: 'dkc.io', plural: 'nodeconfigs', kind: 'NodeConfig' } as ResourceDef,
        object: rollout({ configSource: ref('default', 'd') }),
      }),
      warns: [],
    },
  ];
  for (const c of cases) {
    it(`${c.what}: ${c.warns.length ? 'warns' : 'says nothing'}`, () => {
      assert.deepEqual(configNamespaceWarnings(c.a), c.warns);
    });
  }

  it('on the NodeConfig channel adds its warnings to the response and refuses nothing', async () => {
    const a = attrs({ object: rollout({ configSource: ref('kube-system', 'c') }), warnings: ['earlier'] });
    await rolloutConfigNamespace('nodeconfig').validate!(a);
    assert.equal(a.warnings?.length, 2);
    assert.equal(a.warnings?.[0], 'earlier');
  });

  it("says nothing where the server keeps the Node's fields (a node reads what it is assigned anywhere)", async () => {
    const a = attrs({ object: rollout({ configSource: ref('kube-system', 'c') }) });
    await rolloutConfigNamespace('node').validate!(a);
    assert.equal(a.warnings, undefined);
  });
});
