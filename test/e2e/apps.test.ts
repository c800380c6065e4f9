// apps/v1 on a real `dkc server` with real kubectl (1.20 and 1.32): a Deployment applied from a file, listed wide
// with the printers' columns, scaled through its scale subresource, its strategy explained from the served schema,
// an invalid one refused in kube-apiserver's words, one made by `create deployment` (a protobuf body from 1.32), and
// `get all` listing them.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kubectl, type Kubectl, type KubectlVersion } from '../helpers/kubectl.js';
import { startServer, type RunningServer } from '../helpers/server.js';

const deployment = (name: string, templateLabel: string) =>
  JSON.stringify({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'default' },
    spec: {
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: templateLabel } },
        spec: { containers: [{ name: 'web', image: 'registry.k8s.io/pause:3.9' }] },
      },
    },
  });

describe('apps/v1 through kubectl', { concurrency: false, timeout: 60_000 }, () => {
  let server: RunningServer;
  let work = '';

  before(async () => {
    // The server's serving is under test: no workload controller changes what kubectl prints.
    server = await startServer(['--controllers=']);
    work = await mkdtemp(join(tmpdir(), 'dkc-apps-'));
  });
  after(async () => {
    await server?.cleanup();
    if (work) await rm(work, { recursive: true, force: true });
  });

  for (const version of ['1.20', '1.32'] as KubectlVersion[]) {
    describe(`kubectl ${version}`, () => {
      const name = `web-${version.replace('.', '')}`;
      let k: Kubectl;
      before(async () => {
        k = await kubectl(version, server.kubeconfig);
      });
      after(async () => k?.cleanup());

      it('apply -f creates a Deployment with kube defaults', async () => {
        const f = join(work, `${name}.json`);
        await writeFile(f, deployment(name, name));
        assert.match(await k.ok(['apply', '-f', f]), new RegExp(`deployment.apps/${name} created`));
        const strategy = await k.ok(['get', 'deploy', name, '-o', 'jsonpath={.spec.strategy}']);
        assert.deepEqual(JSON.parse(strategy), {
          type: 'RollingUpdate',
          rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' },
        });
      });

      it('get deploy -o wide prints the printers columns', async () => {
        const lines = (await k.ok(['get', 'deploy', name, '-o', 'wide'])).trim().split('\n');
        assert.match(lines[0]!, /^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE\s+CONTAINERS\s+IMAGES\s+SELECTOR$/);
        assert.match(
          lines[1]!,
          new RegExp(`^${name}\\s+0/1\\s+0\\s+0\\s+\\S+\\s+web\\s+registry.k8s.io/pause:3.9\\s+app=${name}$`),
        );
      });

      it('scale goes through the scale subresource to spec.replicas', async () => {
        assert.match(
          await k.ok(['scale', `deploy/${name}`, '--replicas=3']),
          new RegExp(`deployment.apps/${name} scaled`),
        );
        const out = await k.ok(['get', 'deploy', name, '-o', 'jsonpath={.spec.replicas} {.metadata.generation}']);
        assert.equal(out, '3 2');
      });

      it('generation moves with the annotations of a Deployment', async () => {
        await k.ok(['annotate', 'deploy', name, 'team=web']);
        assert.equal(await k.ok(['get', 'deploy', name, '-o', 'jsonpath={.metadata.generation}']), '3');
      });

      // kubectl writes a subresource from 1.24 on.
      if (version === '1.32')
        it('a status write keeps the generation and the spec', async () => {
          const patch = JSON.stringify({ status: { replicas: 3, observedGeneration: 3 }, spec: { replicas: 9 } });
          await k.ok(['patch', 'deploy', name, '--subresource=status', '--type=merge', '-p', patch]);
          const out = await k.ok([
            'get',
            'deploy',
            name,
            '-o',
            'jsonpath={.metadata.generation} {.spec.replicas} {.status.replicas}',
          ]);
          assert.equal(out, '3 3 3');
        });

      // kubectl 1.32 explains from /openapi/v3, 1.20 from /openapi/v2.
      it('explain deployment.spec.strategy reads the served schema', async () => {
        const out = await k.ok(['explain', 'deployment.spec.strategy']);
        assert.match(out, /KIND:\s+Deployment/);
        assert.match(out, /How a Deployment replaces existing Pods with new ones\./);
        assert.match(out, /rollingUpdate\s/);
        assert.match(out, /type\s/);
      });

      it('an invalid Deployment is refused in kube-apiserver words', async () => {
        const f = join(work, `${name}-bad.json`);
        await writeFile(f, deployment(`${name}-bad`, 'other'));
        const r = await k.run(['apply', '-f', f]);
        assert.notEqual(r.code, 0);
        assert.match(
          r.stderr,
          /spec\.template\.metadata\.labels: Invalid value: map\[string\]string\{"app":"other"\}: `selector` does not match template `labels`/,
        );
      });

      it('create deployment posts it (kubectl 1.32 as protobuf) and is served', async () => {
        assert.match(
          await k.ok(['create', 'deployment', `${name}-made`, '--image=registry.k8s.io/pause:3.9']),
          new RegExp(`deployment.apps/${name}-made created`),
        );
        const made = await k.ok([
          'get',
          'deploy',
          `${name}-made`,
          '-o',
          'jsonpath={.spec.template.spec.containers[0].image}',
        ]);
        assert.equal(made, 'registry.k8s.io/pause:3.9');
      });

      it('get all lists the Deployment', async () => {
        const out = await k.ok(['get', 'all']);
        assert.match(out, new RegExp(`deployment.apps/${name}\\s+0/3`));
      });
    });
  }
});
