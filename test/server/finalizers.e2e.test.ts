// Deletion with finalizers on a real server, as kube-apiserver does it for every kind, driven by kubectl 1.32 and
// 1.20: a delete of an object that names finalizers marks it (deletionTimestamp, deletionGracePeriodSeconds 0, a
// custom resource's generation bumped once) and keeps it; a second delete changes nothing; no new finalizer may be
// added while it is deleting (kube's message); removing the last finalizer deletes it, and a watch sees it go.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type RunningServer } from '../helpers/server.js';
import { kubectl, type Kubectl, type KubectlVersion } from '../helpers/kubectl.js';
import { waitFor } from '../helpers/wait.js';
import { crdOf } from '../helpers/crds.js';

let server: RunningServer;

const CRD = crdOf({
  group: 'example.com',
  kind: 'Hold',
  plural: 'holds',
  schema: { type: 'object', properties: { spec: { type: 'object', properties: { n: { type: 'integer' } } } } },
});

interface Meta {
  name?: string;
  generation?: number;
  finalizers?: string[];
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  resourceVersion?: string;
}

before(async () => {
  server = await startServer();
  const k = await kubectl('1.32', server.kubeconfig);
  try {
    await k.ok(['apply', '-f', '-'], { input: JSON.stringify(CRD) });
    await waitFor('the Hold kind served', async () => ((await k.run(['get', 'holds'])).code === 0 ? true : undefined));
  } finally {
    await k.cleanup();
  }
});

after(async () => {
  await server?.cleanup();
});

for (const version of ['1.32', '1.20'] as KubectlVersion[]) {
  describe(`finalizers with kubectl ${version}`, () => {
    let k: Kubectl;
    before(async () => {
      k = await kubectl(version, server.kubeconfig);
    });
    after(async () => {
      await k?.cleanup();
    });

    const cases = [
      {
        kind: 'configmap',
        body: (name: string) => ({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name, finalizers: ['example.com/hold'] },
          data: { a: '1' },
        }),
      },
      {
        kind: 'hold',
        body: (name: string) => ({
          apiVersion: 'example.com/v1',
          kind: 'Hold',
          metadata: { name, finalizers: ['example.com/hold'] },
          spec: { n: 1 },
        }),
      },
    ];
    for (const c of cases) {
      it(`a ${c.kind} with a finalizer is marked on delete, kept until the finalizer goes, then deleted`, async () => {
        const name = `${c.kind}-${version.replace('.', '-')}`;
        await k.ok(['create', '-f', '-'], { input: JSON.stringify(c.body(name)) });
        const get = async (): Promise<Meta> =>
          (JSON.parse(await k.ok(['get', c.kind, name, '-o', 'json'])) as { metadata: Meta }).metadata;
        const created = await get();

        const watch = k.spawn([
          'get',
          c.kind,
          name,
          '--watch',
          '--output-watch-events',
          '-o',
          'jsonpath={.type}{"\\n"}',
        ]);
        let seen = '';
        watch.stdout!.on('data', (d: Buffer) => (seen += d.toString()));
        try {
          assert.match(
            await k.ok(['delete', c.kind, name, '--wait=false']),
            new RegExp(`^${c.kind}(\\.example\\.com)? "${name}" deleted`),
          );
          const marked = await get();
          assert.ok(marked.deletionTimestamp, 'deletionTimestamp set');
          assert.equal(marked.deletionGracePeriodSeconds, 0);
          assert.deepEqual(marked.finalizers, ['example.com/hold']);
          if (c.kind === 'hold')
            assert.equal(marked.generation, (created.generation ?? 0) + 1, 'the generation bumped once');

          await k.ok(['delete', c.kind, name, '--wait=false']);
          assert.equal((await get()).resourceVersion, marked.resourceVersion, 'a second delete changes nothing');

          const more = await k.run([
            'patch',
            c.kind,
            name,
            '--type=merge',
            '-p',
            JSON.stringify({ metadata: { finalizers: ['example.com/hold', 'example.com/more'] } }),
          ]);
          assert.notEqual(more.code, 0);
          assert.match(
            more.stderr,
            /metadata\.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers \[\]string\{"example\.com\/more"\}/,
          );

          const labelled = await k.run(['label', c.kind, name, 'still=writable']);
          assert.equal(labelled.code, 0, labelled.stderr);
          assert.equal(
            (await get()).deletionTimestamp,
            marked.deletionTimestamp,
            'an update keeps the deletionTimestamp',
          );

          await k.ok(['patch', c.kind, name, '--type=merge', '-p', '{"metadata":{"finalizers":null}}']);
          const gone = await k.run(['get', c.kind, name]);
          assert.notEqual(gone.code, 0);
          assert.match(gone.stderr, /NotFound/);
          await waitFor('the watch to see DELETED', async () => (/DELETED/.test(seen) ? true : undefined));
        } finally {
          if (watch.exitCode === null) watch.kill('SIGKILL');
        }
      });
    }

    it('an object without finalizers is deleted at once', async () => {
      const name = `plain-${version.replace('.', '-')}`;
      await k.ok(['create', 'configmap', name, '--from-literal=a=1']);
      await k.ok(['delete', 'configmap', name]);
      assert.match((await k.run(['get', 'configmap', name])).stderr, /NotFound/);
    });
  });
}
