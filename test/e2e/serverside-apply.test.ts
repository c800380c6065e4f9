// Server-side apply through kubectl 1.32, as the SSA documentation walks it, on a ConfigMap and on dkc's own kinds:
// `apply --server-side` creates; a second field manager changing the same field is refused with kube-apiserver's
// conflict message (one conflict, several, and the "using" and "with subresource" forms of an updater); setting a
// field to the value it has shares it; `--force-conflicts` moves it (managedFields checked); a field dropped from the
// applied file goes, unless another manager still owns it; kubectl's switch from client-side apply to server-side
// apply and back; `kubectl diff` with and without --server-side (exit 1 with a change, 0 without, nothing stored);
// items of a list-type map (a rollout's status.conditions, by type) and of a set (a policy's allowedFields) owned one
// by one.
//
// The scenario is a table: each step is a kubectl command with its input, the exit code and output it must give, and
// what the object and its managedFields must then be. The controllers are off, so that nothing else writes.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { RestClient } from '../../src/client/index.js';
import { kubectl, type Kubectl } from '../helpers/kubectl.js';
import { startServer, type RunningServer } from '../helpers/server.js';

interface Entry {
  manager: string;
  operation: string;
  apiVersion: string;
  time?: string;
  fieldsType: string;
  fieldsV1: Record<string, unknown>;
  subresource?: string;
}

interface Obj {
  metadata: {
    name: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    managedFields?: Entry[];
  };
  [k: string]: unknown;
}

/** FieldsV1 flattened to the paths it names, written as kube-apiserver's conflict messages write them (independently of the server's code). */
function fieldPaths(fields: Record<string, unknown>, prefix = ''): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(fields)) {
    if (k === '.') continue;
    const kind = k.slice(0, 2);
    const body = k.slice(2);
    let step: string;
    if (kind === 'f:') step = `.${body}`;
    else if (kind === 'k:')
      step = `[${Object.entries(JSON.parse(body) as Record<string, unknown>)
        .map(([n, x]) => `${n}=${JSON.stringify(x)}`)
        .join(',')}]`;
    else if (kind === 'v:') step = `[=${JSON.stringify(JSON.parse(body))}]`;
    else step = `[${body}]`;
    const child = v as Record<string, unknown>;
    const children = Object.keys(child).filter((c) => c !== '.');
    if (children.length === 0 || Object.hasOwn(child, '.')) out.push(prefix + step);
    out.push(...fieldPaths(child, prefix + step));
  }
  return out.sort();
}

/** Who owns what: "manager/Operation[/subresource]" → paths. */
function owners(o: Obj): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const e of o.metadata.managedFields ?? []) {
    assert.equal(e.fieldsType, 'FieldsV1');
    // kubectl's own move of client-side apply's fields to server-side apply writes an entry without a time.
    if (e.time !== undefined) assert.match(e.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/, 'time at second precision');
    out[`${e.manager}/${e.operation}${e.subresource ? `/${e.subresource}` : ''}`] = fieldPaths(e.fieldsV1);
  }
  return out;
}

/** A field's value by a dotted path (a key with dots in brackets: labels[app.kubernetes.io/name]). */
function valueAt(o: unknown, path: string): unknown {
  let cur = o;
  for (const part of path.match(/[^.[\]]+|\[[^\]]+\]/g) ?? []) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[part.replace(/^\[|\]$/g, '')];
  }
  return cur;
}

interface Step {
  what: string;
  args: string[];
  input?: string;
  code: number;
  /** The whole of stdout, or a pattern it must match. */
  stdout?: string | RegExp;
  /** A pattern stderr must match (when the exit code is not 0: kubectl's one-line error). */
  stderr?: RegExp;
  /** Field values after the step (undefined: absent). */
  values?: Record<string, unknown>;
  /** Exactly these managers with exactly these fields (paths as conflict messages write them, sorted). */
  owners?: Record<string, string[]>;
}

interface Scenario {
  kind: string;
  /** kubectl's resource name for messages, e.g. configmap, nodeconfigrollout.dkc.io. */
  resource: string;
  path: string;
  name: string;
  steps: Step[];
}

const cm = (name: string, data: Record<string, string>, labels?: Record<string, string>): string =>
  JSON.stringify({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'default', ...(labels ? { labels } : {}) },
    data,
  });

const rollout = (name: string, spec: Record<string, unknown>): string =>
  JSON.stringify({
    apiVersion: 'dkc.io/v1alpha1',
    kind: 'NodeConfigRollout',
    metadata: { name },
    spec: {
      paused: true,
      configSource: { configMap: { namespace: 'kube-system', name: 'cfg-a', kubeletConfigKey: 'kubelet' } },
      nodeSelector: { matchLabels: { pool: 'nowhere' } },
      ...spec,
    },
  });

const policy = (name: string, spec: Record<string, unknown>): string =>
  JSON.stringify({ apiVersion: 'dkc.io/v1alpha1', kind: 'NodeConfigPolicy', metadata: { name }, spec });

const conflictHelp = /Please review the fields above--they currently have other managers/;

const SCENARIOS: Scenario[] = [
  {
    kind: 'ConfigMap',
    resource: 'configmap',
    path: '/api/v1/namespaces/default/configmaps',
    name: 'ssa-cm',
    steps: [
      {
        what: 'apply --server-side creates the object; kubectl owns what it applied',
        args: ['apply', '--server-side', '-f', '-'],
        input: cm('ssa-cm', { a: '1', b: '2', c: '3' }),
        code: 0,
        stdout: 'configmap/ssa-cm serverside-applied\n',
        values: { 'data.a': '1', 'data.b': '2', 'data.c': '3' },
        owners: { 'kubectl/Apply': ['.data.a', '.data.b', '.data.c'] },
      },
      {
        what: 'another manager changing a field kubectl owns is refused with the conflict',
        args: ['apply', '--server-side', '--field-manager', 'ops', '-f', '-'],
        input: cm('ssa-cm', { a: 'x' }),
        code: 1,
        stderr: /^error: Apply failed with 1 conflict: conflict with "kubectl": \.data\.a\n/,
        values: { 'data.a': '1' },
      },
      {
        what: 'changing two of them names both, under their manager',
        args: ['apply', '--server-side', '--field-manager', 'ops', '-f', '-'],
        input: cm('ssa-cm', { a: 'x', b: 'y' }),
        code: 1,
        stderr: /^error: Apply failed with 2 conflicts: conflicts with "kubectl":\n- \.data\.a\n- \.data\.b\n/,
      },
      {
        what: "--force-conflicts takes the field: its value is the new manager's, and kubectl no longer owns it",
        args: ['apply', '--server-side', '--field-manager', 'ops', '--force-conflicts', '-f', '-'],
        input: cm('ssa-cm', { a: 'x' }),
        code: 0,
        stdout: 'configmap/ssa-cm serverside-applied\n',
        values: { 'data.a': 'x' },
        owners: { 'kubectl/Apply': ['.data.b', '.data.c'], 'ops/Apply': ['.data.a'] },
      },
      {
        what: 'applying a field with the value it has shares it',
        args: ['apply', '--server-side', '--field-manager', 'ops', '-f', '-'],
        input: cm('ssa-cm', { a: 'x', b: '2' }),
        code: 0,
        owners: { 'kubectl/Apply': ['.data.b', '.data.c'], 'ops/Apply': ['.data.a', '.data.b'] },
      },
      {
        what: 'kubectl drops b and c from its file: c (its alone) goes, b (shared) stays with the other manager',
        args: ['apply', '--server-side', '-f', '-'],
        input: cm('ssa-cm', { d: '4' }),
        code: 0,
        values: { 'data.a': 'x', 'data.b': '2', 'data.c': undefined, 'data.d': '4' },
        owners: { 'kubectl/Apply': ['.data.d'], 'ops/Apply': ['.data.a', '.data.b'] },
      },
      {
        what: 'kubectl label is an update: it owns the label it set (kubectl-label, Update)',
        args: ['label', 'configmap', 'ssa-cm', 'team=blue'],
        code: 0,
        owners: {
          'kubectl/Apply': ['.data.d'],
          'kubectl-label/Update': ['.metadata.labels', '.metadata.labels.team'],
          'ops/Apply': ['.data.a', '.data.b'],
        },
      },
      {
        what: 'an apply changing that label conflicts with the updater, named "using" its apiVersion',
        args: ['apply', '--server-side', '--field-manager', 'ops', '-f', '-'],
        input: cm('ssa-cm', { a: 'x', b: '2' }, { team: 'red' }),
        code: 1,
        stderr:
          /^error: Apply failed with 1 conflict: conflict with "kubectl-label" using v1: \.metadata\.labels\.team\n/,
      },
      {
        what: 'kubectl diff --server-side shows a change (exit 1) and stores nothing',
        args: ['diff', '--server-side', '-f', '-'],
        input: cm('ssa-cm', { d: '5' }),
        code: 1,
        stdout: /^-  d: "4"\n\+  d: "5"$/m,
        values: { 'data.d': '4' },
      },
      {
        what: 'kubectl diff --server-side of what is applied shows nothing (exit 0)',
        args: ['diff', '--server-side', '-f', '-'],
        input: cm('ssa-cm', { d: '4' }),
        code: 0,
        stdout: '',
      },
      {
        what: 'apply --server-side --dry-run=server answers the change and stores nothing',
        args: ['apply', '--server-side', '--dry-run=server', '-f', '-'],
        input: cm('ssa-cm', { d: '6' }),
        code: 0,
        stdout: 'configmap/ssa-cm serverside-applied (server dry run)\n',
        values: { 'data.d': '4' },
      },
    ],
  },
  {
    kind: 'ConfigMap (client-side apply to server-side and back)',
    resource: 'configmap',
    path: '/api/v1/namespaces/default/configmaps',
    name: 'csa-cm',
    steps: [
      {
        what: 'client-side apply creates it (kubectl-client-side-apply, Update, with the last-applied annotation)',
        args: ['apply', '-f', '-'],
        input: cm('csa-cm', { a: '1', b: '2' }),
        code: 0,
        stdout: 'configmap/csa-cm created\n',
        owners: {
          'kubectl-client-side-apply/Update': [
            '.data',
            '.data.a',
            '.data.b',
            '.metadata.annotations',
            '.metadata.annotations.kubectl.kubernetes.io/last-applied-configuration',
          ],
        },
      },
      {
        what: 'kubectl diff (client-side) shows a change (exit 1)',
        args: ['diff', '-f', '-'],
        input: cm('csa-cm', { a: '1', b: '3' }),
        code: 1,
        stdout: /^-  b: "2"\n\+  b: "3"$/m,
        values: { 'data.b': '2' },
      },
      {
        what: 'apply --server-side takes over what client-side apply set, without conflicts; b, dropped, goes',
        args: ['apply', '--server-side', '-f', '-'],
        input: cm('csa-cm', { a: '1', c: '3' }),
        code: 0,
        stdout: 'configmap/csa-cm serverside-applied\n',
        values: { 'data.a': '1', 'data.b': undefined, 'data.c': '3' },
        owners: {
          'kubectl/Apply': ['.data.a', '.data.c'],
          'kubectl-last-applied/Apply': ['.metadata.annotations.kubectl.kubernetes.io/last-applied-configuration'],
        },
      },
      {
        what: 'the last-applied annotation follows the server-side apply',
        args: [
          'get',
          'configmap',
          'csa-cm',
          '-o',
          'jsonpath={.metadata.annotations.kubectl\\.kubernetes\\.io/last-applied-configuration}',
        ],
        code: 0,
        stdout:
          '{"apiVersion":"v1","data":{"a":"1","c":"3"},"kind":"ConfigMap","metadata":{"name":"csa-cm","namespace":"default"}}\n',
      },
      {
        what: 'client-side apply again: c, dropped, goes; d is added',
        args: ['apply', '-f', '-'],
        input: cm('csa-cm', { a: '1', d: '4' }),
        code: 0,
        stdout: 'configmap/csa-cm configured\n',
        values: { 'data.a': '1', 'data.c': undefined, 'data.d': '4' },
        owners: {
          'kubectl/Apply': ['.data.a'],
          'kubectl-client-side-apply/Update': [
            '.data.d',
            '.metadata.annotations.kubectl.kubernetes.io/last-applied-configuration',
          ],
        },
      },
    ],
  },
  {
    kind: 'NodeConfigRollout',
    resource: 'nodeconfigrollout.dkc.io',
    path: '/apis/dkc.io/v1alpha1/nodeconfigrollouts',
    name: 'ssa-rollout',
    steps: [
      {
        what: 'apply --server-side creates the rollout; the schema fills the defaults, which no one owns',
        args: ['apply', '--server-side', '-f', '-'],
        input: rollout('ssa-rollout', {
          strategy: { maxUnavailable: 2 },
          progressDeadlineSeconds: 300,
          maxFailures: 1,
        }),
        code: 0,
        stdout: 'nodeconfigrollout.dkc.io/ssa-rollout serverside-applied\n',
        values: {
          'spec.strategy.maxUnavailable': 2,
          'spec.strategy.canary': 1,
          'spec.progressDeadlineSeconds': 300,
          'spec.maxFailures': 1,
        },
        owners: {
          'kubectl/Apply': [
            '.spec.configSource.configMap.kubeletConfigKey',
            '.spec.configSource.configMap.name',
            '.spec.configSource.configMap.namespace',
            '.spec.maxFailures',
            '.spec.nodeSelector',
            '.spec.paused',
            '.spec.progressDeadlineSeconds',
            '.spec.strategy.maxUnavailable',
          ],
        },
      },
      {
        what: 'another manager applying the same rollout with another batch size conflicts on that field only',
        args: ['apply', '--server-side', '--field-manager', 'ops', '-f', '-'],
        input: rollout('ssa-rollout', { strategy: { maxUnavailable: 3 } }),
        code: 1,
        stderr: /^error: Apply failed with 1 conflict: conflict with "kubectl": \.spec\.strategy\.maxUnavailable\n/,
      },
      {
        what: 'forced, it takes the fields it changes (the selector, atomic, as one field) and shares the others',
        args: ['apply', '--server-side', '--field-manager', 'ops', '--force-conflicts', '-f', '-'],
        input: rollout('ssa-rollout', {
          nodeSelector: { matchLabels: { pool: 'blue' } },
          strategy: { maxUnavailable: 3 },
        }),
        code: 0,
        values: { 'spec.strategy.maxUnavailable': 3, 'spec.nodeSelector': { matchLabels: { pool: 'blue' } } },
        owners: {
          'kubectl/Apply': [
            '.spec.configSource.configMap.kubeletConfigKey',
            '.spec.configSource.configMap.name',
            '.spec.configSource.configMap.namespace',
            '.spec.maxFailures',
            '.spec.paused',
            '.spec.progressDeadlineSeconds',
          ],
          'ops/Apply': [
            '.spec.configSource.configMap.kubeletConfigKey',
            '.spec.configSource.configMap.name',
            '.spec.configSource.configMap.namespace',
            '.spec.nodeSelector',
            '.spec.paused',
            '.spec.strategy.maxUnavailable',
          ],
        },
      },
      {
        what: 'kubectl drops maxFailures: it goes back to its default',
        args: ['apply', '--server-side', '-f', '-'],
        input: JSON.stringify({
          apiVersion: 'dkc.io/v1alpha1',
          kind: 'NodeConfigRollout',
          metadata: { name: 'ssa-rollout' },
          spec: { progressDeadlineSeconds: 300 },
        }),
        code: 0,
        values: { 'spec.maxFailures': 0, 'spec.progressDeadlineSeconds': 300 },
      },
      {
        what: 'two managers each apply a status condition: the list merges by type',
        args: ['apply', '--server-side', '--subresource=status', '--field-manager', 'checker-a', '-f', '-'],
        input: JSON.stringify({
          apiVersion: 'dkc.io/v1alpha1',
          kind: 'NodeConfigRollout',
          metadata: { name: 'ssa-rollout' },
          status: { conditions: [{ type: 'CheckA', status: 'True' }] },
        }),
        code: 0,
      },
      {
        what: '(the second condition)',
        args: ['apply', '--server-side', '--subresource=status', '--field-manager', 'checker-b', '-f', '-'],
        input: JSON.stringify({
          apiVersion: 'dkc.io/v1alpha1',
          kind: 'NodeConfigRollout',
          metadata: { name: 'ssa-rollout' },
          status: { conditions: [{ type: 'CheckB', status: 'False' }] },
        }),
        code: 0,
        values: {
          'status.conditions': [
            { type: 'CheckA', status: 'True' },
            { type: 'CheckB', status: 'False' },
          ],
        },
      },
      {
        what: 'an update of status through the subresource (kubectl patch --subresource=status)',
        args: [
          'patch',
          'nodeconfigrollout',
          'ssa-rollout',
          '--subresource=status',
          '--type=merge',
          '-p',
          '{"status":{"phase":"Paused"}}',
        ],
        code: 0,
      },
      {
        what: 'an apply changing that field names the updater with its subresource and apiVersion',
        args: ['apply', '--server-side', '--subresource=status', '--field-manager', 'checker-a', '-f', '-'],
        input: JSON.stringify({
          apiVersion: 'dkc.io/v1alpha1',
          kind: 'NodeConfigRollout',
          metadata: { name: 'ssa-rollout' },
          status: { phase: 'Halted', conditions: [{ type: 'CheckA', status: 'True' }] },
        }),
        code: 1,
        stderr:
          /^error: Apply failed with 1 conflict: conflict with "kubectl-patch" with subresource "status" using dkc\.io\/v1alpha1: \.status\.phase\n/,
      },
      {
        what: 'the status managers own their own condition, by its key; spec and status managers stay apart',
        args: ['get', 'nodeconfigrollout', 'ssa-rollout', '-o', 'name'],
        code: 0,
        owners: {
          'checker-a/Apply/status': [
            '.status.conditions[type="CheckA"]',
            '.status.conditions[type="CheckA"].status',
            '.status.conditions[type="CheckA"].type',
          ],
          'checker-b/Apply/status': [
            '.status.conditions[type="CheckB"]',
            '.status.conditions[type="CheckB"].status',
            '.status.conditions[type="CheckB"].type',
          ],
          'kubectl/Apply': ['.spec.progressDeadlineSeconds'],
          'kubectl-patch/Update/status': ['.status.phase'],
          'ops/Apply': [
            '.spec.configSource.configMap.kubeletConfigKey',
            '.spec.configSource.configMap.name',
            '.spec.configSource.configMap.namespace',
            '.spec.nodeSelector',
            '.spec.paused',
            '.spec.strategy.maxUnavailable',
          ],
        },
      },
      {
        what: 'kubectl diff --server-side on a custom kind: exit 1 with a change',
        args: ['diff', '--server-side', '--field-manager', 'ops', '-f', '-'],
        input: rollout('ssa-rollout', {
          nodeSelector: { matchLabels: { pool: 'blue' } },
          strategy: { maxUnavailable: 4 },
        }),
        code: 1,
        stdout: /^-    maxUnavailable: 3\n\+    maxUnavailable: 4$/m,
        values: { 'spec.strategy.maxUnavailable': 3 },
      },
    ],
  },
  {
    kind: 'NodeConfigPolicy',
    resource: 'nodeconfigpolicy.dkc.io',
    path: '/apis/dkc.io/v1alpha1/nodeconfigpolicies',
    name: 'ssa-policy',
    steps: [
      {
        what: 'apply --server-side creates the policy; set items and map keys are owned one by one',
        args: ['apply', '--server-side', '-f', '-'],
        input: policy('ssa-policy', {
          allowedFields: ['maxPods'],
          bounds: { maxPods: { minimum: 10, maximum: 250 } },
          enforcement: 'Deny',
        }),
        code: 0,
        stdout: 'nodeconfigpolicy.dkc.io/ssa-policy serverside-applied\n',
        owners: {
          'kubectl/Apply': [
            '.spec.allowedFields[="maxPods"]',
            '.spec.bounds.maxPods',
            '.spec.bounds.maxPods.maximum',
            '.spec.bounds.maxPods.minimum',
            '.spec.enforcement',
          ],
        },
      },
      {
        what: 'a second manager adds to the set and to the map, without conflicts',
        args: ['apply', '--server-side', '--field-manager', 'tuning', '-f', '-'],
        input: policy('ssa-policy', { allowedFields: ['eventRecordQPS'], bounds: { eventRecordQPS: { maximum: 50 } } }),
        code: 0,
        values: {
          'spec.allowedFields': ['maxPods', 'eventRecordQPS'],
          'spec.bounds': { maxPods: { minimum: 10, maximum: 250 }, eventRecordQPS: { maximum: 50 } },
        },
      },
      {
        what: 'and conflicts on a bound kubectl set',
        args: ['apply', '--server-side', '--field-manager', 'tuning', '-f', '-'],
        input: policy('ssa-policy', {
          allowedFields: ['eventRecordQPS'],
          bounds: { eventRecordQPS: { maximum: 50 }, maxPods: { maximum: 110 } },
        }),
        code: 1,
        stderr: /^error: Apply failed with 1 conflict: conflict with "kubectl": \.spec\.bounds\.maxPods\.maximum\n/,
      },
      {
        what: "kubectl drops its set item and its bound minimum: they go, the other manager's stay; enforcement goes back to its default",
        args: ['apply', '--server-side', '-f', '-'],
        input: policy('ssa-policy', { bounds: { maxPods: { maximum: 250 } } }),
        code: 0,
        values: {
          'spec.allowedFields': ['eventRecordQPS'],
          'spec.bounds': { maxPods: { maximum: 250 }, eventRecordQPS: { maximum: 50 } },
          'spec.enforcement': 'Deny',
        },
        owners: {
          'kubectl/Apply': ['.spec.bounds.maxPods', '.spec.bounds.maxPods.maximum'],
          'tuning/Apply': [
            '.spec.allowedFields[="eventRecordQPS"]',
            '.spec.bounds.eventRecordQPS',
            '.spec.bounds.eventRecordQPS.maximum',
          ],
        },
      },
      {
        what: 'kubectl diff --server-side with nothing to change exits 0',
        args: ['diff', '--server-side', '-f', '-'],
        input: policy('ssa-policy', { bounds: { maxPods: { maximum: 250 } } }),
        code: 0,
        stdout: '',
      },
    ],
  },
];

let server: RunningServer;
let client: RestClient;
let k: Kubectl;

before(async () => {
  server = await startServer(['--controllers', '']);
  client = await RestClient.fromKubeconfig(server.kubeconfig);
  k = await kubectl('1.32', server.kubeconfig);
  await client.create('/api/v1/namespaces/kube-system/configmaps', {
    metadata: { name: 'cfg-a', namespace: 'kube-system' },
    data: { kubelet: 'kind: KubeletConfiguration\napiVersion: kubelet.config.k8s.io/v1beta1\n' },
  });
});

after(async () => {
  await k?.cleanup();
  client?.close();
  await server?.cleanup();
});

for (const s of SCENARIOS) {
  describe(`kubectl 1.32, server-side apply: ${s.kind}`, () => {
    for (const step of s.steps) {
      it(step.what, async () => {
        const r = await k.run(step.args, step.input === undefined ? {} : { input: step.input });
        assert.equal(r.code, step.code, `kubectl ${step.args.join(' ')}: exit ${r.code}\n${r.stderr}${r.stdout}`);
        if (typeof step.stdout === 'string') assert.equal(r.stdout, step.stdout);
        else if (step.stdout) assert.match(r.stdout, step.stdout);
        if (step.stderr) {
          assert.match(r.stderr, step.stderr);
          if (/conflict/.test(r.stderr)) assert.match(r.stderr, conflictHelp);
        } else if (step.code === 0) assert.equal(r.stderr, '');
        const obj = await client.get<Obj>(`${s.path}/${s.name}`);
        for (const [path, want] of Object.entries(step.values ?? {})) assert.deepEqual(valueAt(obj, path), want, path);
        if (step.owners) assert.deepEqual(owners(obj), step.owners);
      });
    }
  });
}
