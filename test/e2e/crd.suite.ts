// CustomResourceDefinitions end to end: real kubectl 1.20 and 1.32 against a real `dkc server`, once per storage
// backend (crd.test.ts: SQLite, crd.etcd.test.ts: etcd). A CRD of the test's own (namespaced, enum, int-or-string,
// defaults, printer columns, status subresource) and dkc's shipped NodeConfigRollout (cluster-scoped).

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { RestClient, type ApiError } from '../../src/client/index.js';
import { kubectl, type Kubectl, type KubectlVersion } from '../helpers/kubectl.js';
import { repoRoot, startServer, type RunningServer, type StorageBackend } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';

const CRD_FILE = join(repoRoot, 'test/e2e/fixtures/widgets-crd.yaml');
const WIDGETS = (ns: string) => `/apis/example.dkc.io/v1/namespaces/${ns}/widgets`;

function widget(ns: string, name: string, spec: Record<string, unknown>, labels: Record<string, string> = {}): string {
  return JSON.stringify({
    apiVersion: 'example.dkc.io/v1',
    kind: 'Widget',
    metadata: { name, namespace: ns, labels },
    spec,
  });
}

interface Widget {
  metadata: { generation?: number; resourceVersion?: string; labels?: Record<string, string> };
  spec: Record<string, unknown>;
  status?: Record<string, unknown>;
}

async function rejects(p: Promise<unknown>, code: number): Promise<ApiError> {
  try {
    await p;
  } catch (err) {
    assert.equal((err as ApiError).code, code, (err as Error).message);
    return err as ApiError;
  }
  assert.fail(`expected a ${code}`);
}

export function crdSuite(storage: StorageBackend): void {
  let server: RunningServer;
  let client: RestClient;

  before(async () => {
    server = await startServer([], { storage });
    client = await RestClient.fromKubeconfig(server.kubeconfig);
  });

  after(async () => {
    client?.close();
    await server?.cleanup();
  });

  for (const version of ['1.20', '1.32'] as KubectlVersion[]) {
    describe(`CustomResourceDefinitions with kubectl ${version} (${storage})`, () => {
      let k: Kubectl;
      const ns = `crd-${version.replace('.', '-')}`;

      before(async () => {
        k = await kubectl(version, server.kubeconfig);
        await k.ok(['create', 'namespace', ns]);
      });
      after(async () => {
        await k?.cleanup();
      });

      it('applies a CRD, which becomes Established and appears in discovery with its short name and category', async () => {
        await k.ok(['apply', '-f', CRD_FILE]);
        await k.ok(['wait', '--for', 'condition=established', '--timeout', '20s', 'crd/widgets.example.dkc.io']);
        const crd = JSON.parse(await k.ok(['get', 'crd', 'widgets.example.dkc.io', '-o', 'json'])) as {
          status: { conditions: { type: string; status: string }[]; acceptedNames: { kind: string } };
        };
        assert.deepEqual(
          crd.status.conditions.map((c) => [c.type, c.status]),
          [
            ['NamesAccepted', 'True'],
            ['Established', 'True'],
          ],
        );
        assert.equal(crd.status.acceptedNames.kind, 'Widget');
        const resources = await k.ok(['api-resources', '--api-group', 'example.dkc.io']);
        assert.match(resources, /widgets\s+wd\s+example\.dkc\.io\/v1\s+true\s+Widget/);
        const shipped = await k.ok(['api-resources', '--api-group', 'dkc.io']);
        assert.match(shipped, /nodeconfigrollouts\s+ncr\s+dkc\.io\/v1alpha1\s+false\s+NodeConfigRollout/);
      });

      it('creates objects with schema defaults, lists them with printer columns, selectors and the category', async () => {
        await k.ok(['apply', '-f', '-'], { input: widget(ns, 'w1', { size: 'small' }, { tier: 'a' }) });
        await k.ok(['apply', '-f', '-'], {
          input: widget(ns, 'w2', { size: 'large', replicas: 4, port: 8080 }, { tier: 'b' }),
        });
        const w1 = JSON.parse(await k.ok(['-n', ns, 'get', 'wd', 'w1', '-o', 'json'])) as Widget;
        assert.equal(w1.spec['replicas'], 1);
        assert.equal(w1.spec['port'], 'http');
        assert.equal(w1.metadata.generation, 1);
        const table = await k.ok(['-n', ns, 'get', 'widgets']);
        const lines = table.trim().split('\n');
        assert.match(lines[0]!, /^NAME\s+SIZE\s+REPLICAS\s+READY\s+AGE$/);
        // A column whose path finds nothing is an empty cell (w1 has no status yet).
        assert.match(lines[1]!, /^w1\s+small\s+1\s+\d+s$/);
        assert.match(lines[2]!, /^w2\s+large\s+4\s+/);
        assert.equal(
          (await k.ok(['-n', ns, 'get', 'wd', '-l', 'tier=b', '-o', 'name'])).trim(),
          'widget.example.dkc.io/w2',
        );
        assert.equal(
          (await k.ok(['-n', ns, 'get', 'wd', '--field-selector', 'metadata.name=w1', '-o', 'name'])).trim(),
          'widget.example.dkc.io/w1',
        );
        assert.match(
          await k.ok(['-n', ns, 'get', 'gadgets', '-o', 'name']),
          /widget\.example\.dkc\.io\/w1\nwidget\.example\.dkc\.io\/w2/,
        );
      });

      it('patches with merge and JSON patches (generation moves), and refuses strategic merge with 415', async () => {
        await k.ok(['-n', ns, 'patch', 'wd', 'w1', '--type', 'merge', '-p', '{"spec":{"replicas":3}}']);
        await k.ok([
          '-n',
          ns,
          'patch',
          'wd',
          'w1',
          '--type',
          'json',
          '-p',
          '[{"op":"replace","path":"/spec/size","value":"large"}]',
        ]);
        const w1 = JSON.parse(await k.ok(['-n', ns, 'get', 'wd', 'w1', '-o', 'json'])) as Widget;
        assert.equal(w1.spec['replicas'], 3);
        assert.equal(w1.spec['size'], 'large');
        assert.equal(w1.metadata.generation, 3);
        const r = await k.run(['-n', ns, 'patch', 'wd', 'w1', '-p', '{"spec":{"replicas":2}}']);
        assert.notEqual(r.code, 0);
        // The 415 names the patch types the endpoint accepts, as kube-apiserver's does for a custom kind.
        assert.match(
          r.stderr,
          /the body of the request was in an unknown format - accepted media types include: application\/json-patch\+json, application\/merge-patch\+json, application\/apply-patch\+yaml$/m,
        );
      });

      it('refuses schema violations with 422 and field paths', async () => {
        const r = await k.run(['apply', '-f', '-'], {
          input: widget(ns, 'bad', { size: 'medium', replicas: 11, name: 'A1', port: [1] }),
        });
        assert.notEqual(r.code, 0);
        assert.match(r.stderr, /The Widget "bad" is invalid/);
        assert.match(r.stderr, /spec\.size: Unsupported value: "medium": supported values: "small", "large"/);
        assert.match(
          r.stderr,
          /spec\.replicas: Invalid value: 11: spec\.replicas in body should be less than or equal to 10/,
        );
        assert.match(r.stderr, /spec\.name: Invalid value: "A1": spec\.name in body should match '\^\[a-z\]\+\$'/);
        assert.match(r.stderr, /spec\.port/);
        if (version === '1.20') {
          // kubectl 1.20 checks required fields itself against /openapi/v2, as it does with kube-apiserver.
          const local = await k.run(['apply', '-f', '-'], { input: widget(ns, 'bad2', { replicas: 1 }) });
          assert.notEqual(local.code, 0);
          assert.match(
            local.stderr,
            /ValidationError\(Widget\.spec\): missing required field "size" in io\.dkc\.example\.v1\.Widget\.spec/,
          );
        }
        const missing = await k.run(['apply', ...(version === '1.20' ? ['--validate=false'] : []), '-f', '-'], {
          input: widget(ns, 'bad2', { replicas: 1 }),
        });
        assert.match(missing.stderr, /spec\.size: Required value/);
        await rejects(client.get(`${WIDGETS(ns)}/bad`), 404);
        const status = await rejects(
          client.create(WIDGETS(ns), JSON.parse(widget(ns, 'bad', { size: 'medium' })) as object),
          422,
        );
        assert.equal(
          status.message,
          'Widget.example.dkc.io "bad" is invalid: spec.size: Unsupported value: "medium": supported values: "small", "large"',
        );
        assert.deepEqual(status.status.details, {
          name: 'bad',
          group: 'example.dkc.io',
          kind: 'Widget',
          causes: [
            {
              reason: 'FieldValueNotSupported',
              message: 'Unsupported value: "medium": supported values: "small", "large"',
              field: 'spec.size',
            },
          ],
        });
      });

      it('prunes unknown fields (with a warning), keeps preserved ones, and refuses them under Strict', async () => {
        // kubectl ≥ 1.25 asks for Strict by default; --validate=warn asks for warnings. kubectl 1.20 refuses unknown
        // fields itself, from /openapi/v2, unless told not to validate.
        const w3 = widget(ns, 'w3', { size: 'small', colour: 'red', extra: { anything: { goes: 1 } } });
        if (version === '1.20') {
          const local = await k.run(['apply', '-f', '-'], { input: w3 });
          assert.notEqual(local.code, 0);
          assert.match(
            local.stderr,
            /ValidationError\(Widget\.spec\): unknown field "colour" in io\.dkc\.example\.v1\.Widget\.spec/,
          );
        }
        const validate = version === '1.32' ? ['--validate=warn'] : ['--validate=false'];
        const r = await k.run(['apply', ...validate, '-f', '-'], { input: w3 });
        assert.equal(r.code, 0, r.stderr);
        if (version === '1.32') assert.match(r.stderr, /unknown field "spec\.colour"/);
        const stored = await client.get<Widget>(`${WIDGETS(ns)}/w3`);
        assert.equal(stored.spec['colour'], undefined);
        assert.deepEqual(stored.spec['extra'], { anything: { goes: 1 } });
        const strict = await rejects(
          client.create(WIDGETS(ns), JSON.parse(widget(ns, 'w4', { size: 'small', colour: 'red' })) as object, {
            query: { fieldValidation: 'Strict' },
          }),
          400,
        );
        assert.match(strict.message, /strict decoding error: unknown field "spec\.colour"/);
        if (version === '1.32') {
          const s = await k.run(['create', '-f', '-'], { input: widget(ns, 'w4', { size: 'small', colour: 'red' }) });
          assert.notEqual(s.code, 0);
          assert.match(s.stderr, /unknown field "spec\.colour"/);
        }
      });

      it('separates spec and status: each endpoint ignores the other half, and status writes keep the generation', async () => {
        const before = await client.get<Widget>(`${WIDGETS(ns)}/w2`);
        await client.patch(`${WIDGETS(ns)}/w2`, 'merge', { status: { observed: 7 }, spec: { replicas: 5 } });
        const afterMain = await client.get<Widget>(`${WIDGETS(ns)}/w2`);
        assert.equal(afterMain.status, undefined);
        assert.equal(afterMain.spec['replicas'], 5);
        assert.equal(afterMain.metadata.generation, (before.metadata.generation ?? 0) + 1);
        if (version === '1.32') {
          await k.ok([
            '-n',
            ns,
            'patch',
            'wd',
            'w2',
            '--subresource',
            'status',
            '--type',
            'merge',
            '-p',
            '{"status":{"observed":2,"conditions":[{"type":"Ready","status":"True"}]},"spec":{"replicas":9}}',
          ]);
        } else {
          await client.patch(`${WIDGETS(ns)}/w2/status`, 'merge', {
            status: { observed: 2, conditions: [{ type: 'Ready', status: 'True' }] },
            spec: { replicas: 9 },
          });
        }
        const afterStatus = await client.get<Widget>(`${WIDGETS(ns)}/w2`);
        assert.equal(afterStatus.spec['replicas'], 5);
        assert.deepEqual(afterStatus.status, { observed: 2, conditions: [{ type: 'Ready', status: 'True' }] });
        assert.equal(afterStatus.metadata.generation, afterMain.metadata.generation);
        assert.match(await k.ok(['-n', ns, 'get', 'wd', 'w2']), /w2\s+large\s+5\s+True\s+/);
        await rejects(client.patch(`${WIDGETS(ns)}/w2/status`, 'merge', { status: { observed: 'many' } }), 422);
      });

      it('watches custom objects with a label selector', async () => {
        const watch = k.spawn([
          '-n',
          ns,
          'get',
          'wd',
          '-l',
          'tier=a',
          '--watch',
          '-o',
          'custom-columns=NAME:.metadata.name,REPLICAS:.spec.replicas',
          '--no-headers',
        ]);
        try {
          let out = '';
          watch.stdout!.on('data', (d: Buffer) => (out += d.toString()));
          await waitFor('the initial state', async () => (/w1\s+3/.test(out) ? true : undefined));
          await k.ok(['-n', ns, 'patch', 'wd', 'w1', '--type', 'merge', '-p', '{"spec":{"replicas":6}}']);
          await k.ok(['-n', ns, 'patch', 'wd', 'w2', '--type', 'merge', '-p', '{"spec":{"replicas":7}}']);
          await waitFor('the change of w1', async () => (/w1\s+6/.test(out) ? true : undefined));
          assert.doesNotMatch(out, /w2/);
        } finally {
          watch.kill('SIGKILL');
        }
      });

      it('serves the cluster-scoped NodeConfigRollout with its defaults and columns', async () => {
        const name = `ncr-${version.replace('.', '-')}`;
        const ncr = {
          apiVersion: 'dkc.io/v1alpha1',
          kind: 'NodeConfigRollout',
          metadata: { name },
          spec: { nodeSelector: { matchLabels: { pool: 'blue' } }, configSource: {} },
        };
        await k.ok(['apply', '-f', '-'], { input: JSON.stringify(ncr) });
        const got = JSON.parse(await k.ok(['get', 'ncr', name, '-o', 'json'])) as Widget;
        assert.deepEqual(got.spec['strategy'], {
          canary: 1,
          maxUnavailable: 1,
          soakSeconds: 0,
          pauseAfterCanary: false,
          skipIncompatible: false,
        });
        assert.equal(got.spec['failurePolicy'], 'Revert');
        assert.equal(got.spec['progressDeadlineSeconds'], 120);
        assert.match(
          (await k.ok(['get', 'ncr'])).split('\n')[0]!,
          /^NAME\s+PHASE\s+TARGET\s+UPDATED\s+SUCCEEDED\s+FAILED\s+AGE$/,
        );
        const bad = await k.run(['patch', 'ncr', name, '--type', 'merge', '-p', '{"spec":{"failurePolicy":"Retry"}}']);
        assert.match(bad.stderr, /spec\.failurePolicy: Unsupported value: "Retry": supported values: "Revert", "Halt"/);
        // kubectl 1.20 validates the whole edited object, status and metadata included, against /openapi/v2 first.
        const status = {
          phase: 'Progressing',
          startTime: null,
          currentBatch: 0,
          nodes: { n1: { state: 'InFlight', batch: 0 } },
        };
        await client.patch(`/apis/dkc.io/v1alpha1/nodeconfigrollouts/${name}/status`, 'json', [
          { op: 'add', path: '/status', value: status },
        ]);
        const edited = await k.ok(['edit', 'ncr', name], {
          env: { KUBE_EDITOR: "sed -i 's#paused: false#paused: true#'" },
        });
        assert.match(edited, new RegExp(`nodeconfigrollout\\.dkc\\.io/${name} edited`));
        assert.equal(
          (await client.get<Widget>(`/apis/dkc.io/v1alpha1/nodeconfigrollouts/${name}`)).spec['paused'],
          true,
        );
        // kubectl 1.32 explains from /openapi/v3, kubectl 1.20 from /openapi/v2.
        const explain = await k.ok(['explain', 'ncr.spec.strategy']);
        assert.match(explain, /KIND:\s+NodeConfigRollout/);
        assert.match(explain, /VERSION:\s+(dkc\.io\/)?v1alpha1/);
        assert.match(explain, /(RESOURCE|FIELD): strategy <Object>/);
        assert.match(explain, /maxUnavailable/);
        assert.match(explain, /Nodes switching at once after the canary/);
        assert.match(explain, /soakSeconds\t<integer>/);
      });
    });
  }

  describe(`CustomResourceDefinitions that name built-ins, protected groups, forged status (${storage})`, () => {
    let k: Kubectl;
    const UNAPPROVED = { 'api-approved.kubernetes.io': 'unapproved, a test of names' };
    const crdOf = (
      group: string,
      plural: string,
      kind: string,
      annotations: Record<string, string> = {},
      scope = 'Namespaced',
    ) =>
      JSON.stringify({
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: `${plural}.${group}`, annotations },
        spec: {
          group,
          scope,
          names: { plural, singular: kind.toLowerCase(), kind },
          versions: [
            {
              name: 'v1',
              served: true,
              storage: true,
              schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
            },
          ],
        },
      });
    const names = async (resource: string) =>
      (await k.ok(['get', resource, '-A', '-o', 'name'])).trim().split('\n').sort();
    const condition = async (crd: string, type: string) => {
      const got = JSON.parse(await k.ok(['get', 'crd', crd, '-o', 'json'])) as {
        status: { conditions: { type: string; status: string; reason: string; message: string }[] };
      };
      const c = got.status.conditions.find((x) => x.type === type);
      return c && `${c.status} ${c.reason}: ${c.message}`;
    };

    before(async () => {
      k = await kubectl('1.32', server.kubeconfig);
      await k.ok(['create', 'namespace', 'names']);
      await k.ok(['-n', 'names', 'create', '-f', '-'], {
        input: JSON.stringify({
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          metadata: { name: 'keep-me' },
          spec: { holderIdentity: 'me' },
        }),
      });
    });
    after(async () => {
      await k?.cleanup();
    });

    it("creating and deleting a CRD whose names a built-in has leaves the built-in's objects alone", async () => {
      for (const [group, plural, kind, scope] of [
        ['rbac.authorization.k8s.io', 'clusterroles', 'ClusterRole', 'Cluster'],
        ['coordination.k8s.io', 'leases', 'Lease', 'Namespaced'],
      ] as const) {
        const resource = `${plural}.${group}`;
        const before = await names(resource);
        assert.ok(before.length > 0, `some ${resource} to keep`);
        await k.ok(['create', '-f', '-'], { input: crdOf(group, plural, kind, UNAPPROVED, scope) });
        assert.equal(
          await condition(`${plural}.${group}`, 'NamesAccepted'),
          `False NameConflict: "${plural}" is already in use`,
        );
        await k.ok(['delete', 'crd', `${plural}.${group}`]);
        assert.deepEqual(await names(resource), before, `every ${kind} is still there`);
      }
    });

    it('refuses a CRD in a protected group without a valid api-approved.kubernetes.io annotation, as kube-apiserver does', async () => {
      const missing = await k.run(['create', '-f', '-'], { input: crdOf('example.k8s.io', 'things', 'Thing') });
      assert.notEqual(missing.code, 0);
      assert.equal(
        missing.stderr.trim(),
        'The CustomResourceDefinition "things.example.k8s.io" is invalid: metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111',
      );
      const invalid = await k.run(['create', '-f', '-'], {
        input: crdOf('kubernetes.io', 'things', 'Thing', { 'api-approved.kubernetes.io': 'yes' }),
      });
      assert.equal(
        invalid.stderr.trim(),
        'The CustomResourceDefinition "things.kubernetes.io" is invalid: metadata.annotations[api-approved.kubernetes.io]: Invalid value: "yes": protected groups must have approval annotation "api-approved.kubernetes.io" with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111',
      );
      await k.ok(['create', '-f', '-'], {
        input: crdOf('example.k8s.io', 'things', 'Thing', {
          'api-approved.kubernetes.io': 'https://github.com/kubernetes/enhancements/pull/1111',
        }),
      });
      assert.equal(
        await condition('things.example.k8s.io', 'KubernetesAPIApprovalPolicyConformant'),
        'True ApprovedAnnotation: approved in https://github.com/kubernetes/enhancements/pull/1111',
      );
      await k.ok(['create', '-f', '-'], { input: crdOf('x.kubernetes.io', 'gadgets', 'Gadget', UNAPPROVED) });
      assert.equal(
        await condition('gadgets.x.kubernetes.io', 'KubernetesAPIApprovalPolicyConformant'),
        'False UnapprovedAnnotation: not approved: "unapproved, a test of names"',
      );
      // An update that keeps the annotation's state is not refused; one that makes it invalid is.
      await k.ok(['label', 'crd', 'things.example.k8s.io', 'touched=yes']);
      const broken = await k.run([
        'annotate',
        '--overwrite',
        'crd',
        'things.example.k8s.io',
        'api-approved.kubernetes.io=later',
      ]);
      assert.match(broken.stderr, /metadata\.annotations\[api-approved\.kubernetes\.io\]: Invalid value: "later"/);
      // Groups outside k8s.io and kubernetes.io need nothing, and get no such condition.
      assert.equal(await condition('nodeconfigrollouts.dkc.io', 'KubernetesAPIApprovalPolicyConformant'), undefined);
      for (const crd of ['things.example.k8s.io', 'gadgets.x.kubernetes.io']) await k.ok(['delete', 'crd', crd]);
    });

    it('drops status from a created custom object whose kind has a status subresource, and from a created CRD', async () => {
      const forged = {
        apiVersion: 'dkc.io/v1alpha1',
        kind: 'NodeConfigRollout',
        metadata: { name: 'forged' },
        spec: { nodeSelector: { matchLabels: { pool: 'none' } }, configSource: {} },
        status: { phase: 'Succeeded' },
      };
      const created = JSON.parse(
        await k.ok(['create', '-f', '-', '-o', 'json'], { input: JSON.stringify(forged) }),
      ) as Widget;
      assert.equal(created.status, undefined);
      const widgetWithStatus = {
        ...(JSON.parse(widget('names', 'forged', { size: 'small' })) as object),
        status: { conditions: [{ type: 'Ready', status: 'True' }] },
      };
      await k.ok(['apply', '-f', CRD_FILE]);
      const w = JSON.parse(
        await k.ok(['create', '-f', '-', '-o', 'json'], { input: JSON.stringify(widgetWithStatus) }),
      ) as Widget;
      assert.equal(w.status, undefined);
      // The status subresource still writes it.
      await client.patch(`${WIDGETS('names')}/forged/status`, 'merge', {
        status: { conditions: [{ type: 'Ready', status: 'False' }] },
      });
      assert.deepEqual((await client.get<Widget>(`${WIDGETS('names')}/forged`)).status, {
        conditions: [{ type: 'Ready', status: 'False' }],
      });
      // Without a status subresource, status is part of the object, as in kube-apiserver.
      await k.ok(['create', '-f', '-'], { input: crdOf('example.dkc.io', 'plains', 'Plain') });
      await k.ok(['wait', '--for', 'condition=established', '--timeout', '20s', 'crd/plains.example.dkc.io']);
      const plain = JSON.parse(
        await k.ok(['create', '-f', '-', '-o', 'json'], {
          input: JSON.stringify({
            apiVersion: 'example.dkc.io/v1',
            kind: 'Plain',
            metadata: { name: 'p', namespace: 'names' },
            status: { kept: true },
          }),
        }),
      ) as Widget;
      assert.deepEqual(plain.status, { kept: true });
      // A CRD's status is the server's from its creation: a forged one is replaced.
      const crd = JSON.parse(crdOf('example.dkc.io', 'forgeds', 'Forged')) as Record<string, unknown>;
      crd['status'] = {
        storedVersions: ['v0', 'v1'],
        acceptedNames: { plural: 'clusterroles', kind: 'ClusterRole' },
        conditions: [{ type: 'Established', status: 'True' }],
      };
      const made = JSON.parse(await k.ok(['create', '-f', '-', '-o', 'json'], { input: JSON.stringify(crd) })) as {
        status: { storedVersions: string[]; acceptedNames: { plural: string } };
      };
      assert.deepEqual(made.status.storedVersions, ['v1']);
      assert.equal(made.status.acceptedNames.plural, 'forgeds');
      for (const c of ['plains.example.dkc.io', 'forgeds.example.dkc.io']) await k.ok(['delete', 'crd', c]);
      await k.ok(['delete', 'ncr', 'forged']);
    });
  });

  describe(`CustomResourceDefinitions across a restart and a delete (${storage})`, () => {
    it('keeps CRDs and custom objects across a server restart', async () => {
      await server.restart();
      client.close();
      client = await RestClient.fromKubeconfig(server.kubeconfig);
      const w = await client.get<Widget>(`${WIDGETS('crd-1-32')}/w1`);
      assert.equal(w.spec['replicas'], 6);
      const list = await client.list<{ items: unknown[] }>('/apis/dkc.io/v1alpha1/nodeconfigrollouts');
      assert.equal(list.items.length, 2);
    });

    it('deleting a CRD deletes its objects and stops serving it', async () => {
      await client.delete('/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.dkc.io');
      await rejects(client.list(WIDGETS('crd-1-32')), 404);
      const k = await kubectl('1.32', server.kubeconfig);
      try {
        await k.ok(['apply', '-f', CRD_FILE]);
        const list = await client.list<{ items: unknown[] }>(WIDGETS('crd-1-32'));
        assert.deepEqual(list.items, []);
      } finally {
        await k.cleanup();
      }
    });
  });
}
