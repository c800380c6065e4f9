// Real kubectl (1.20 from Debian and 1.32) against a real `dkc server` process: the commands an operator runs in
// the dynamic kubelet config workflow, each checked for what kubectl prints.
// Runs once per storage backend (kubectl.test.ts: SQLite, kubectl.etcd.test.ts: etcd).

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import https from 'node:https';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { kubectl, type Kubectl, type KubectlVersion } from '../helpers/kubectl.js';
import { startServer, type RunningServer, type StorageBackend } from '../helpers/server.js';
import { selfSignedServing } from '../../src/pki/index.js';
import type { ConfigMap, KubeObject, Namespace, Node } from '../../src/api/types.js';

/** What a kubelet's /configz answers. */
interface Configz {
  kubeletconfig: Record<string, unknown>;
}

export function kubectlSuite(storage: StorageBackend): void {
  const execFileAsync = promisify(execFile);
  const KUBELET_YAML =
    'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nevictionHard:\n  memory.available: "200Mi"\n';

  function nodeManifest(name: string, kubeletPort: number): string {
    return JSON.stringify({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name, labels: { 'kubernetes.io/hostname': name, tier: 'test' } },
      status: {
        conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'ready' }],
        addresses: [
          { type: 'InternalIP', address: '127.0.0.1' },
          { type: 'Hostname', address: name },
        ],
        daemonEndpoints: { kubeletEndpoint: { Port: kubeletPort } },
        nodeInfo: {
          kubeletVersion: 'v1.22.17-dkc',
          osImage: 'Debian GNU/Linux 12',
          kernelVersion: '6.1.0',
          containerRuntimeVersion: 'dkc://0.1.0',
        },
      },
    });
  }

  /** Waits until `pred` holds on the accumulated output of a long-running process, or fails after `ms`. */
  function waitForOutput(p: ReturnType<Kubectl['spawn']>, pred: (out: string) => boolean, ms: number): Promise<string> {
    return new Promise((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`timed out waiting; output so far:\n${out}`)), ms);
      const onData = (d: Buffer) => {
        out += d.toString();
        if (pred(out)) {
          clearTimeout(timer);
          resolve(out);
        }
      };
      p.stdout!.on('data', onData);
      p.stderr!.on('data', onData);
    });
  }

  let server: RunningServer;
  let work: string;
  let fakeKubelet: https.Server;
  let kubeletPort = 0;

  before(async () => {
    server = await startServer([], { storage });
    work = await mkdtemp(join(tmpdir(), 'dkc-kubectl-work-'));
    // A stand-in kubelet endpoint for the node proxy: real HTTPS with a self-signed certificate.
    const serving = await selfSignedServing(['localhost'], ['127.0.0.1']);
    fakeKubelet = https.createServer({ cert: serving.certPem, key: serving.keyPem }, (req, res) => {
      if (req.url?.startsWith('/configz')) {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ kubeletconfig: { eventRecordQPS: 5, seenPath: req.url } }));
      } else {
        res.writeHead(404, { 'Content-Type': 'text/plain' });
        res.end('404 page not found\n');
      }
    });
    await new Promise<void>((r) => fakeKubelet.listen(0, '127.0.0.1', r));
    kubeletPort = (fakeKubelet.address() as AddressInfo).port;
  });

  after(async () => {
    await server?.cleanup();
    fakeKubelet?.close();
    if (work) await rm(work, { recursive: true, force: true });
  });

  for (const version of ['1.20', '1.32'] as KubectlVersion[]) {
    describe(`kubectl ${version}`, () => {
      let k: Kubectl;
      const v = version.replace('.', '');
      const node = `node-${v}`;

      before(async () => {
        k = await kubectl(version, server.kubeconfig);
        const f = join(work, `${node}.json`);
        await writeFile(f, nodeManifest(node, kubeletPort));
        const out = await k.ok(['create', '-f', f]);
        assert.match(out, new RegExp(`node/${node} created`));
      });
      after(async () => k?.cleanup());

      it('version reports a 1.22 server', async () => {
        const out = await k.ok(['version']);
        assert.match(out, /Server Version: .*v1\.22\.\d+-dkc/);
      });

      it('get nodes / no / cm / ev / ns print tables', async () => {
        const nodes = await k.ok(['get', 'nodes']);
        assert.match(nodes.split('\n')[0]!, /^NAME\s+STATUS\s+ROLES\s+AGE\s+VERSION\s*$/);
        assert.match(nodes, new RegExp(`${node}\\s+Ready\\s+<none>\\s+\\d+s\\s+v1\\.22\\.17-dkc`));
        const no = await k.ok(['get', 'no']);
        assert.match(no, new RegExp(node));
        const ns = await k.ok(['get', 'ns']);
        for (const n of ['default', 'kube-system', 'kube-public', 'kube-node-lease'])
          assert.match(ns, new RegExp(`^${n}\\s+Active`, 'm'));
        const cm = await k.run(['get', 'cm', '-n', 'kube-public']);
        assert.equal(cm.code, 0, cm.stderr);
        assert.match(cm.stderr + cm.stdout, /No resources found in kube-public namespace\./);
        const ev = await k.run(['get', 'ev']);
        assert.equal(ev.code, 0, ev.stderr);
      });

      it('get node -o yaml|json, -o wide, --show-labels', async () => {
        const y = parseYaml(await k.ok(['get', 'node', node, '-o', 'yaml'])) as Node;
        assert.equal(y['kind'], 'Node');
        assert.equal(y['apiVersion'], 'v1');
        assert.equal(y['metadata']['name'], node);
        assert.match(y['metadata']['uid'] ?? '', /^[0-9a-f-]{36}$/);
        assert.match(y['metadata']['resourceVersion'] ?? '', /^\d+$/);
        const j = JSON.parse(await k.ok(['get', 'no', node, '-o', 'json'])) as Node;
        assert.equal(j.kind, 'Node');
        assert.equal(j.status?.conditions?.[0]?.type, 'Ready');
        const wide = await k.ok(['get', 'nodes', '-o', 'wide']);
        assert.match(wide.split('\n')[0]!, /INTERNAL-IP\s+EXTERNAL-IP\s+OS-IMAGE\s+KERNEL-VERSION\s+CONTAINER-RUNTIME/);
        assert.match(
          wide,
          new RegExp(
            `${node}\\s+Ready.*127\\.0\\.0\\.1\\s+<none>\\s+Debian GNU/Linux 12\\s+6\\.1\\.0\\s+dkc://0\\.1\\.0`,
          ),
        );
        const labels = await k.ok(['get', 'nodes', '--show-labels']);
        assert.match(labels, new RegExp(`${node}.*kubernetes.io/hostname=${node},tier=test`));
      });

      it('create -f with generateName, replace -f', async () => {
        const f = join(work, `gen-${v}.yaml`);
        await writeFile(
          f,
          `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  generateName: gen-${v}-\n  namespace: default\ndata:\n  a: "1"\n`,
        );
        const out = await k.ok(['create', '-f', f]);
        const m = new RegExp(`configmap/(gen-${v}-[a-z0-9]{5}) created`).exec(out);
        assert.ok(m, out);
        const name = m[1]!;
        const r = join(work, `replace-${v}.yaml`);
        await writeFile(
          r,
          `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: default\ndata:\n  a: "2"\n  b: "3"\n`,
        );
        assert.match(await k.ok(['replace', '-f', r]), new RegExp(`configmap/${name} replaced`));
        const got = JSON.parse(await k.ok(['get', 'cm', name, '-o', 'json'])) as ConfigMap;
        assert.deepEqual(got.data, { a: '2', b: '3' });
        const table = await k.ok(['get', 'cm']);
        assert.match(table, new RegExp(`${name}\\s+2\\s+\\d+s`));
      });

      it('create configmap --from-file --append-hash -o yaml, then delete it (with wait)', async () => {
        const f = join(work, 'kubelet.yaml');
        await writeFile(f, KUBELET_YAML);
        const name = `my-node-config-${v}`;
        const out = await k.ok([
          '-n',
          'kube-system',
          'create',
          'configmap',
          name,
          `--from-file=kubelet=${f}`,
          '--append-hash',
          '-o',
          'yaml',
        ]);
        const cm = parseYaml(out) as ConfigMap;
        assert.equal(cm['kind'], 'ConfigMap');
        assert.equal(cm['metadata']['namespace'], 'kube-system');
        assert.match(cm['metadata']['name'] ?? '', new RegExp(`^${name}-[a-z0-9]{10}$`));
        assert.equal(cm['data']?.['kubelet'], KUBELET_YAML);
        assert.ok(cm['metadata']['uid']);
        // The same content gives the same name, so a second create conflicts.
        const again = await k.run([
          '-n',
          'kube-system',
          'create',
          'configmap',
          name,
          `--from-file=kubelet=${f}`,
          '--append-hash',
        ]);
        assert.notEqual(again.code, 0);
        assert.match(again.stderr, /already exists/);
        const del = await k.ok(['-n', 'kube-system', 'delete', 'configmap', cm['metadata']['name']!], {});
        assert.match(del, new RegExp(`configmap "${cm['metadata']['name']}" deleted`));
        const gone = await k.run(['-n', 'kube-system', 'get', 'configmap', cm['metadata']['name']!]);
        assert.equal(gone.code, 1);
        assert.match(gone.stderr, /NotFound/);
      });

      it('the reference tutorial name: my-node-config-k867md486d', async () => {
        if (version !== '1.32') {
          // Run on one version only: the name is the same on both, so the second create would conflict.
          const dry = await k.ok([
            '-n',
            'kube-system',
            'create',
            'configmap',
            'my-node-config',
            `--from-file=kubelet=${join(work, 'kubelet.yaml')}`,
            '--append-hash',
            '--dry-run=client',
            '-o',
            'name',
          ]);
          assert.equal(dry.trim(), 'configmap/my-node-config-k867md486d');
          return;
        }
        const out = await k.ok([
          '-n',
          'kube-system',
          'create',
          'configmap',
          'my-node-config',
          `--from-file=kubelet=${join(work, 'kubelet.yaml')}`,
          '--append-hash',
          '-o',
          'yaml',
        ]);
        assert.equal((parseYaml(out) as ConfigMap)['metadata']['name'], 'my-node-config-k867md486d');
      });

      it('patch node: strategic, merge, json, and no-op', async () => {
        const src = {
          spec: {
            configSource: {
              configMap: { name: 'my-node-config-k867md486d', namespace: 'kube-system', kubeletConfigKey: 'kubelet' },
            },
          },
        };
        assert.match(
          await k.ok(['patch', 'node', node, '-p', JSON.stringify(src)]),
          new RegExp(`node/${node} patched\\n$`),
        );
        assert.match(
          await k.ok(['patch', 'node', node, '-p', JSON.stringify(src)]),
          new RegExp(`node/${node} patched \\(no change\\)`),
        );
        assert.match(
          await k.ok(['patch', 'node', node, '--type', 'merge', '-p', '{"metadata":{"labels":{"patched":"merge"}}}']),
          /patched/,
        );
        assert.match(
          await k.ok([
            'patch',
            'node',
            node,
            '--type',
            'json',
            '-p',
            '[{"op":"add","path":"/metadata/labels/jsonpatched","value":"yes"}]',
          ]),
          /patched/,
        );
        const j = JSON.parse(await k.ok(['get', 'node', node, '-o', 'json'])) as Node;
        assert.equal(j.metadata.labels?.['patched'], 'merge');
        assert.equal(j.metadata.labels?.['jsonpatched'], 'yes');
        assert.deepEqual(j.spec?.configSource, src.spec.configSource);
        assert.match(
          await k.ok(['patch', 'node', node, '--type', 'merge', '-p', '{"spec":{"configSource":null}}']),
          /patched/,
        );
        const cleared = JSON.parse(await k.ok(['get', 'node', node, '-o', 'json'])) as Node;
        assert.equal(cleared.spec?.configSource, undefined);
        const bad = await k.run([
          'patch',
          'node',
          node,
          '-p',
          '{"spec":{"configSource":{"configMap":{"name":"x","namespace":"kube-system","kubeletConfigKey":"kubelet","uid":"abc"}}}}',
        ]);
        assert.equal(bad.code, 1);
        assert.match(bad.stderr, /spec\.configSource\.configMap\.uid: Forbidden: uid must not be set in spec/);
      });

      it('every invalid configSource shape is refused with the exact message', async () => {
        const base = { name: 'c', namespace: 'kube-system', kubeletConfigKey: 'kubelet' };
        const shapes: [unknown, string][] = [
          [
            {},
            'spec.configSource: Invalid value: core.NodeConfigSource{ConfigMap:(*core.ConfigMapNodeConfigSource)(nil)}: exactly one reference subfield must be non-nil',
          ],
          [
            { configMap: { ...base, namespace: '' } },
            'spec.configSource.configMap.namespace: Required value: namespace must be set',
          ],
          [{ configMap: { ...base, name: '' } }, 'spec.configSource.configMap.name: Required value: name must be set'],
          [
            { configMap: { ...base, kubeletConfigKey: '' } },
            'spec.configSource.configMap.kubeletConfigKey: Required value: kubeletConfigKey must be set',
          ],
          [
            { configMap: { ...base, uid: 'u' } },
            'spec.configSource.configMap.uid: Forbidden: uid must not be set in spec',
          ],
          [
            { configMap: { ...base, resourceVersion: '1' } },
            'spec.configSource.configMap.resourceVersion: Forbidden: resourceVersion must not be set in spec',
          ],
          [
            { configMap: { ...base, namespace: '../baz' } },
            'spec.configSource.configMap.namespace: Invalid value: "../baz"',
          ],
          [{ configMap: { ...base, name: '../bar' } }, 'spec.configSource.configMap.name: Invalid value: "../bar"'],
          [
            { configMap: { ...base, kubeletConfigKey: '../qux' } },
            'spec.configSource.configMap.kubeletConfigKey: Invalid value: "../qux"',
          ],
        ];
        for (const [source, message] of shapes) {
          const r = await k.run([
            'patch',
            'node',
            node,
            '--type',
            'merge',
            '-p',
            JSON.stringify({ spec: { configSource: source } }),
          ]);
          assert.equal(r.code, 1, JSON.stringify(source));
          assert.ok(r.stderr.includes(`The Node "${node}" is invalid`), r.stderr);
          assert.ok(r.stderr.includes(message), `${JSON.stringify(source)}: ${r.stderr}`);
        }
      });

      it('edit node with a scripted KUBE_EDITOR adds and removes spec.configSource', async () => {
        const add = join(work, `edit-add-${v}.sh`);
        await writeFile(
          add,
          `#!/bin/sh\nset -e\nsed -i 's/^spec: {}$/spec:/' "$1"\nsed -i 's/^spec:$/spec:\\n  configSource:\\n    configMap:\\n      kubeletConfigKey: kubelet\\n      name: edited-config\\n      namespace: kube-system/' "$1"\n`,
        );
        await chmod(add, 0o755);
        const out = await k.ok(['edit', 'node', node], { env: { KUBE_EDITOR: add } });
        assert.match(out, new RegExp(`node/${node} edited`));
        let j = JSON.parse(await k.ok(['get', 'node', node, '-o', 'json'])) as Node;
        assert.deepEqual(j.spec?.configSource, {
          configMap: { kubeletConfigKey: 'kubelet', name: 'edited-config', namespace: 'kube-system' },
        });
        const remove = join(work, `edit-remove-${v}.sh`);
        await writeFile(remove, `#!/bin/sh\nset -e\nsed -i '/configSource:/,/namespace: kube-system/d' "$1"\n`);
        await chmod(remove, 0o755);
        assert.match(
          await k.ok(['edit', 'node', node], { env: { KUBE_EDITOR: remove } }),
          new RegExp(`node/${node} edited`),
        );
        j = JSON.parse(await k.ok(['get', 'node', node, '-o', 'json'])) as Node;
        assert.equal(j.spec?.configSource, undefined);
        const unchanged = await k.run(['edit', 'node', node], { env: { KUBE_EDITOR: 'true' } });
        assert.match(unchanged.stdout + unchanged.stderr, /Edit cancelled, no changes made\./);
      });

      it('describe node', async () => {
        const out = await k.ok(['describe', 'node', node]);
        assert.match(out, new RegExp(`Name:\\s+${node}`));
        assert.match(out, /^Labels:\s+\S+=\S+$/m);
        assert.match(
          out,
          new RegExp(`^\\s+kubernetes\\.io/hostname=${node}$|^Labels:\\s+kubernetes\\.io/hostname=${node}$`, 'm'),
        );
        assert.match(out, /Ready\s+True/);
      });

      it('get nodes -w --output-watch-events sees another client patch', async () => {
        const w = k.spawn(['get', 'nodes', '-w', '--output-watch-events']);
        try {
          await waitForOutput(w, (o) => o.includes(node), 20_000);
          const saw = waitForOutput(w, (o) => /MODIFIED\s+node-\d+/.test(o), 20_000);
          await k.ok(['label', 'node', node, `watched=${Date.now()}`, '--overwrite']);
          const out = await saw;
          assert.match(out, new RegExp(`MODIFIED\\s+${node}`));
        } finally {
          w.kill('SIGKILL');
        }
      });

      it('get --raw, and the node proxy through get --raw and kubectl proxy', async () => {
        const raw = JSON.parse(await k.ok(['get', '--raw', `/api/v1/nodes/${node}`])) as Node;
        assert.equal(raw.metadata.name, node);
        const configz = JSON.parse(await k.ok(['get', '--raw', `/api/v1/nodes/${node}/proxy/configz`])) as Configz;
        assert.equal(configz.kubeletconfig.eventRecordQPS, 5);
        const missing = await k.run(['get', '--raw', '/api/v1/nodes/nope/proxy/configz']);
        assert.equal(missing.code, 1);
        assert.match(missing.stderr, /nodes "nope" not found/);
        const p = k.spawn(['proxy', '--port=0']);
        try {
          const out = await waitForOutput(p, (o) => /Starting to serve on 127\.0\.0\.1:\d+/.test(o), 20_000);
          const port = Number(/127\.0\.0\.1:(\d+)/.exec(out)![1]);
          // Async: the stand-in kubelet answers from this process's event loop.
          const { stdout: body } = await execFileAsync(
            'curl',
            ['-sf', `http://127.0.0.1:${port}/api/v1/nodes/${node}/proxy/configz?x=1`],
            { encoding: 'utf8', timeout: 20_000 },
          );
          const parsed = JSON.parse(body) as Configz;
          assert.equal(parsed.kubeletconfig.eventRecordQPS, 5);
          assert.equal(parsed.kubeletconfig.seenPath, '/configz?x=1');
        } finally {
          p.kill('SIGKILL');
        }
      });

      // Every `kubectl create <generator>` whose kind the server serves (namespace, configmap and the four RBAC
      // kinds). kubectl 1.32 posts these bodies in protobuf, 1.20 in JSON; the stored objects must be the same.
      describe('create generators', () => {
        const getJson = async (args: string[]): Promise<KubeObject> =>
          JSON.parse(await k.ok(['get', ...args, '-o', 'json'])) as KubeObject;
        const ns = `gen-${v}`;

        it('create namespace', async () => {
          assert.match(await k.ok(['create', 'namespace', ns]), new RegExp(`namespace/${ns} created`));
          const stored = await getJson(['namespace', ns]);
          assert.equal(stored['metadata']['name'], ns);
          assert.deepEqual(stored['spec'], { finalizers: ['kubernetes'] });
          assert.equal((stored as Namespace).status?.phase, 'Active');
        });

        it('create configmap --from-literal --from-file (file and directory) --from-env-file', async () => {
          const dir = join(work, `cm-dir-${v}`);
          await rm(dir, { recursive: true, force: true });
          await mkdir(dir);
          await writeFile(join(dir, 'a.txt'), 'alpha\n');
          await writeFile(join(dir, 'b.yaml'), 'b: 1\n');
          const bin = join(work, `blob-${v}.bin`);
          await writeFile(bin, Buffer.from([0xff, 0xfe, 0x00, 0x01]));
          const env = join(work, `vars-${v}.env`);
          await writeFile(env, 'ONE=1\nTWO=two words\n');
          await k.ok([
            '-n',
            ns,
            'create',
            'configmap',
            'lit',
            '--from-literal=k1=v1',
            '--from-literal=k2=with spaces',
            `--from-file=bin=${bin}`,
          ]);
          const lit = await getJson(['-n', ns, 'configmap', 'lit']);
          assert.deepEqual(lit['data'], { k1: 'v1', k2: 'with spaces' });
          assert.deepEqual(lit['binaryData'], { bin: '//4AAQ==' });
          await k.ok(['-n', ns, 'create', 'configmap', 'dir', `--from-file=${dir}`]);
          assert.deepEqual((await getJson(['-n', ns, 'configmap', 'dir']))['data'], {
            'a.txt': 'alpha\n',
            'b.yaml': 'b: 1\n',
          });
          await k.ok(['-n', ns, 'create', 'configmap', 'env', `--from-env-file=${env}`]);
          assert.deepEqual((await getJson(['-n', ns, 'configmap', 'env']))['data'], { ONE: '1', TWO: 'two words' });
        });

        it('create configmap --append-hash names the object by its content', async () => {
          const out = await k.ok([
            '-n',
            ns,
            'create',
            'configmap',
            'hashed',
            '--from-literal=a=b',
            '--append-hash',
            '-o',
            'name',
          ]);
          const name = out.trim().replace(/^configmap\//, '');
          assert.match(name, /^hashed-[a-z0-9]{10}$/);
          assert.deepEqual((await getJson(['-n', ns, 'configmap', name]))['data'], { a: 'b' });
        });

        it('create role with verbs, resources, a subresource and resource names', async () => {
          const out = await k.ok([
            '-n',
            ns,
            'create',
            'role',
            'reader',
            '--verb=get,list,watch',
            '--resource=configmaps,nodes/status,leases.coordination.k8s.io',
            '--resource-name=a',
            '--resource-name=b',
          ]);
          assert.match(out, /role\.rbac\.authorization\.k8s\.io\/reader created/);
          const role = await getJson(['-n', ns, 'role', 'reader']);
          assert.equal(role['kind'], 'Role');
          assert.equal(role['metadata']['namespace'], ns);
          const rules = role['rules'] as Record<string, string[]>[];
          const byGroup = Object.fromEntries(rules.map((r) => [r['apiGroups']!.join(','), r]));
          assert.deepEqual(byGroup[''], {
            verbs: ['get', 'list', 'watch'],
            apiGroups: [''],
            resources: ['configmaps', 'nodes/status'],
            resourceNames: ['a', 'b'],
          });
          assert.deepEqual(byGroup['coordination.k8s.io'], {
            verbs: ['get', 'list', 'watch'],
            apiGroups: ['coordination.k8s.io'],
            resources: ['leases'],
            resourceNames: ['a', 'b'],
          });
        });

        it('create clusterrole with resources and with non-resource URLs', async () => {
          await k.ok(['create', 'clusterrole', `nodes-${v}`, '--verb=get,patch', '--resource=nodes']);
          assert.deepEqual((await getJson(['clusterrole', `nodes-${v}`]))['rules'], [
            { verbs: ['get', 'patch'], apiGroups: [''], resources: ['nodes'] },
          ]);
          await k.ok([
            'create',
            'clusterrole',
            `health-${v}`,
            '--verb=get',
            '--non-resource-url=/healthz',
            '--non-resource-url=/version/*',
          ]);
          assert.deepEqual((await getJson(['clusterrole', `health-${v}`]))['rules'], [
            { verbs: ['get'], nonResourceURLs: ['/healthz', '/version/*'] },
          ]);
        });

        it('create clusterrole --aggregation-rule stores the selectors (its selector matches nothing, so its rules stay as stored)', async () => {
          await k.ok(['create', 'clusterrole', `agg-${v}`, '--aggregation-rule=example.com/aggregate-to-agg=true']);
          const role = await getJson(['clusterrole', `agg-${v}`]);
          assert.deepEqual(role['aggregationRule'], {
            clusterRoleSelectors: [{ matchLabels: { 'example.com/aggregate-to-agg': 'true' } }],
          });
          // As stored: the JSON body (1.20) and the protobuf body (1.32) both give rules null, as Go writes a nil slice.
          const raw = JSON.parse(
            await k.ok(['get', '--raw', `/apis/rbac.authorization.k8s.io/v1/clusterroles/agg-${v}`]),
          ) as Record<string, unknown>;
          assert.ok('rules' in raw && raw['rules'] === null, JSON.stringify(raw));
        });

        it('create rolebinding for a role and for a cluster role, with every subject kind', async () => {
          await k.ok([
            '-n',
            ns,
            'create',
            'rolebinding',
            'to-role',
            '--role=reader',
            '--user=alice',
            '--group=ops',
            '--serviceaccount=kube-system:agent',
          ]);
          const binding = await getJson(['-n', ns, 'rolebinding', 'to-role']);
          assert.deepEqual(binding['roleRef'], { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'reader' });
          assert.deepEqual(binding['subjects'], [
            { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' },
            { kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'ops' },
            { kind: 'ServiceAccount', name: 'agent', namespace: 'kube-system' },
          ]);
          await k.ok(['-n', ns, 'create', 'rolebinding', 'to-clusterrole', '--clusterrole=view', '--user=bob']);
          assert.deepEqual((await getJson(['-n', ns, 'rolebinding', 'to-clusterrole']))['roleRef'], {
            apiGroup: 'rbac.authorization.k8s.io',
            kind: 'ClusterRole',
            name: 'view',
          });
        });

        it('create clusterrolebinding, and the binding takes effect', async () => {
          const user = `gen-user-${v}`;
          const denied = await k.run(['auth', 'can-i', 'patch', 'nodes', `--as=${user}`]);
          assert.equal(denied.stdout.trim(), 'no');
          await k.ok([
            'create',
            'clusterrolebinding',
            `nodes-${v}`,
            `--clusterrole=nodes-${v}`,
            `--user=${user}`,
            '--group=g1',
          ]);
          const binding = await getJson(['clusterrolebinding', `nodes-${v}`]);
          assert.deepEqual(binding['roleRef'], {
            apiGroup: 'rbac.authorization.k8s.io',
            kind: 'ClusterRole',
            name: `nodes-${v}`,
          });
          assert.deepEqual(binding['subjects'], [
            { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: user },
            { kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'g1' },
          ]);
          assert.equal((await k.ok(['auth', 'can-i', 'patch', 'nodes', `--as=${user}`])).trim(), 'yes');
        });

        it("a generator for a kind the server does not serve fails with the server's answer", async () => {
          const r = await k.run(['-n', ns, 'create', 'serviceaccount', 'sa']);
          assert.notEqual(r.code, 0);
          assert.match(
            r.stderr,
            /the server could not find the requested resource|doesn't have a resource type|no matches for kind/,
          );
        });
      });

      it('api-resources lists the served resources with short names', async () => {
        const out = await k.ok(['api-resources']);
        assert.match(out, /^nodes\s+no\s+v1\s+false\s+Node$/m);
        assert.match(out, /^configmaps\s+cm\s+v1\s+true\s+ConfigMap$/m);
        assert.match(out, /^events\s+ev\s+v1\s+true\s+Event$/m);
        assert.match(out, /^namespaces\s+ns\s+v1\s+false\s+Namespace$/m);
        assert.match(out, /^leases\s+coordination\.k8s\.io\/v1\s+true\s+Lease$/m);
      });

      if (version === '1.32') {
        it('explain node.spec.configSource', async () => {
          const out = await k.ok(['explain', 'node.spec.configSource']);
          assert.match(out, /KIND:\s+Node/);
          assert.match(out, /FIELD:\s+configSource/);
          assert.match(out, /configMap\s+<ConfigMapNodeConfigSource>/);
        });

        it('explain the RBAC kinds from the schemas generated with the others', async () => {
          const rules = await k.ok(['explain', 'role.rules']);
          assert.match(rules, /GROUP:\s+rbac\.authorization\.k8s\.io/);
          assert.match(rules, /FIELD:\s+rules <\[\]PolicyRule>/);
          assert.match(rules, /verbs\s+<\[\]string> -required-/);
          const subjects = await k.ok(['explain', 'clusterrolebinding.subjects']);
          assert.match(subjects, /kind\s+<string> -required-/);
          assert.match(await k.ok(['explain', 'rolebinding.roleRef']), /name\s+<string> -required-/);
        });
      }
    });
  }
}
