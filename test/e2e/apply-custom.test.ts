// `kubectl apply -f` of dkc's own kinds, as an operator keeps them in files: create, edit the file, apply it again.
// The second apply is a patch, and kubectl chooses its type from what the server's documents say the endpoint
// takes: kubectl 1.32 sends a strategic merge patch if /openapi/v3 lists it for the kind, and otherwise if
// /openapi/v2's paths list it (both are read); kubectl 1.20 goes by its own types (a kind it does not know gets a JSON
// merge patch). Each must send a patch the server accepts, and the object must end as the edited file says, with
// the fields the file no longer names removed.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { RestClient } from '../../src/client/index.js';
import { kubectl, type Kubectl, type KubectlVersion } from '../helpers/kubectl.js';
import { startServer, type RunningServer } from '../helpers/server.js';

interface Case {
  kind: string;
  resource: string;
  path: string;
  first: (name: string) => string;
  edited: (name: string) => string;
  check: (obj: { metadata: { labels?: Record<string, string> }; spec: Record<string, unknown> }) => void;
}

const CASES: Case[] = [
  {
    kind: 'NodeConfigRollout',
    resource: 'nodeconfigrollout.dkc.io',
    path: '/apis/dkc.io/v1alpha1/nodeconfigrollouts',
    first: (name) => `apiVersion: dkc.io/v1alpha1
kind: NodeConfigRollout
metadata: {name: ${name}, labels: {team: a}}
spec:
  paused: true
  configSource: {configMap: {namespace: dkc-configs, name: cfg-a, kubeletConfigKey: kubelet}}
  nodeSelector: {matchLabels: {pool: nowhere}}
  strategy: {soakSeconds: 30, maxUnavailable: 2}
`,
    edited: (name) => `apiVersion: dkc.io/v1alpha1
kind: NodeConfigRollout
metadata: {name: ${name}, labels: {team: b}}
spec:
  paused: true
  configSource: {configMap: {namespace: dkc-configs, name: cfg-b, kubeletConfigKey: kubelet}}
  nodeSelector: {matchLabels: {pool: nowhere}}
  strategy: {maxUnavailable: 3}
  progressDeadlineSeconds: 300
`,
    check: (obj) => {
      assert.deepEqual(obj.metadata.labels, { team: 'b' });
      assert.deepEqual(obj.spec['configSource'], {
        configMap: { namespace: 'dkc-configs', name: 'cfg-b', kubeletConfigKey: 'kubelet' },
      });
      assert.equal(obj.spec['progressDeadlineSeconds'], 300);
      // soakSeconds left the file, so apply removed it and the schema's default (0) stands.
      assert.deepEqual(obj.spec['strategy'], {
        canary: 1,
        maxUnavailable: 3,
        pauseAfterCanary: false,
        soakSeconds: 0,
        skipIncompatible: false,
      });
    },
  },
  {
    kind: 'NodeConfigPolicy',
    resource: 'nodeconfigpolicy.dkc.io',
    path: '/apis/dkc.io/v1alpha1/nodeconfigpolicies',
    first: (name) => `apiVersion: dkc.io/v1alpha1
kind: NodeConfigPolicy
metadata: {name: ${name}}
spec:
  nodeSelector: {matchLabels: {pool: blue}}
  allowedFields: [maxPods]
  bounds: {maxPods: {minimum: 10, maximum: 250}}
  enforcement: Deny
`,
    edited: (name) => `apiVersion: dkc.io/v1alpha1
kind: NodeConfigPolicy
metadata: {name: ${name}, labels: {team: b}}
spec:
  nodeSelector: {matchLabels: {pool: blue}}
  allowedFields: [maxPods, eventRecordQPS]
  bounds: {maxPods: {maximum: 200}}
  enforcement: Warn
`,
    check: (obj) => {
      assert.deepEqual(obj.metadata.labels, { team: 'b' });
      assert.deepEqual(obj.spec['allowedFields'], ['maxPods', 'eventRecordQPS']);
      assert.deepEqual(obj.spec['bounds'], { maxPods: { maximum: 200 } });
      assert.equal(obj.spec['enforcement'], 'Warn');
    },
  },
];

const VERSIONS: KubectlVersion[] = ['1.32', '1.20'];

let server: RunningServer;
let client: RestClient;
const handles: Kubectl[] = [];

before(async () => {
  server = await startServer();
  client = await RestClient.fromKubeconfig(server.kubeconfig);
});

after(async () => {
  for (const k of handles) await k.cleanup();
  client?.close();
  await server?.cleanup();
});

for (const version of VERSIONS) {
  describe(`kubectl ${version}: apply -f, edit the file, apply -f again`, () => {
    for (const c of CASES) {
      it(`${c.kind}: the second apply patches the object to what the edited file says`, async () => {
        const k = await kubectl(version, server.kubeconfig);
        handles.push(k);
        const name = `${c.kind.toLowerCase()}-${version.replace('.', '-')}`;
        assert.equal(
          (await k.ok(['apply', '-f', '-'], { input: c.first(name) })).trim(),
          `${c.resource}/${name} created`,
        );
        const again = await k.run(['apply', '-f', '-'], { input: c.edited(name) });
        assert.equal(again.code, 0, again.stderr);
        // Nothing to warn of either: kubectl 1.32 warns when it tries a strategic merge patch for a kind whose fields
        // it cannot place, and then falls back to a merge patch.
        assert.equal(again.stderr, '');
        assert.equal(again.stdout.trim(), `${c.resource}/${name} configured`);
        c.check(await client.get(`${c.path}/${name}`));
        // Applying the same file once more changes nothing.
        assert.equal(
          (await k.ok(['apply', '-f', '-'], { input: c.edited(name) })).trim(),
          `${c.resource}/${name} unchanged`,
        );
      });
    }
  });
}
