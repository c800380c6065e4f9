// Server-side apply from clients no one here wrote, as they apply against kube-apiserver: the official Python client's
// dynamic client (`server_side_apply`), @kubernetes/client-node (`KubernetesObjectApi.patch` with
// PatchStrategy.ServerSideApply) and kubernetes-fluent-client (`K8s(kind).Apply`, always as field manager "pepr").
// Each applies (creating), applies again (changing), is refused with kube-apiserver's conflict when it changes a field
// another field manager owns, and takes it when forced — on a ConfigMap, and the first two on a NodeConfigPolicy.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import * as k8s from '@kubernetes/client-node';
import { K8s, kind } from 'kubernetes-fluent-client';
import { startServer, type RunningServer } from '../helpers/server.js';

const run = promisify(execFile);
const script = fileURLToPath(new URL('../../../test/e2e/fixtures/python_apply.py', import.meta.url));
const python = '/usr/bin/python3';

interface Obj {
  metadata: { managedFields?: { manager: string; operation: string; fieldsV1: Record<string, unknown> }[] };
  data?: Record<string, string>;
  spec?: Record<string, unknown>;
}

const owners = (o: Obj): Record<string, Record<string, unknown>> =>
  Object.fromEntries((o.metadata.managedFields ?? []).map((e) => [`${e.manager}/${e.operation}`, e.fieldsV1]));

let server: RunningServer;

before(async () => {
  server = await startServer(['--controllers=']);
});

after(async () => {
  await server?.cleanup();
});

describe('server-side apply from other clients', () => {
  it("the official Python client's dynamic client: apply, apply again, a conflict, forced", async () => {
    const { stdout } = await run(python, [script, server.kubeconfig], { timeout: 120_000 });
    const out = JSON.parse(stdout) as Record<
      'configmap' | 'policy',
      {
        created: string[];
        changed: Obj;
        conflict: { status: number; message: string };
        forced: Obj;
        forcedManagers: string[];
      }
    >;
    assert.deepEqual(out.configmap.created, ['py-apply/Apply']);
    assert.deepEqual(out.configmap.changed.data, { a: '2', b: '1' });
    assert.deepEqual(out.configmap.conflict, {
      status: 409,
      message: 'Apply failed with 1 conflict: conflict with "py-apply": .data.a',
    });
    assert.deepEqual(out.configmap.forced.data, { a: '3', b: '1' });
    assert.deepEqual(owners(out.configmap.forced), {
      'py-apply/Apply': { 'f:data': { 'f:b': {} } },
      'py-other/Apply': { 'f:data': { 'f:a': {} } },
    });
    assert.deepEqual(out.policy.changed.spec, { allowedFields: ['maxPods'], enforcement: 'Warn' });
    assert.deepEqual(out.policy.conflict, {
      status: 409,
      message: 'Apply failed with 1 conflict: conflict with "py-apply": .spec.enforcement',
    });
    assert.deepEqual(owners(out.policy.forced), {
      'py-apply/Apply': { 'f:spec': { 'f:allowedFields': { 'v:"maxPods"': {} } } },
      'py-other/Apply': { 'f:spec': { 'f:enforcement': {} } },
    });
  });

  it('@kubernetes/client-node: apply, apply again, a conflict, forced', async () => {
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(server.kubeconfig);
    const api = k8s.KubernetesObjectApi.makeApiClient(kc);
    const apply = (body: k8s.KubernetesObject, manager: string, force = false) =>
      api.patch(body, undefined, undefined, manager, force, k8s.PatchStrategy.ServerSideApply) as Promise<
        k8s.KubernetesObject & Obj
      >;
    const conflictOf = async (
      p: Promise<unknown>,
    ): Promise<{ code: number | undefined; message: string | undefined }> => {
      try {
        await p;
      } catch (err) {
        const e = err as { code?: number; body?: unknown };
        const body =
          typeof e.body === 'string'
            ? (JSON.parse(e.body) as { message?: string })
            : (e.body as { message?: string } | undefined);
        return { code: e.code, message: body?.message };
      }
      assert.fail('the conflicting apply went through');
    };

    const cm = (data: Record<string, string>) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'js-apply', namespace: 'default' },
      data,
    });
    const created = await apply(cm({ a: '1' }), 'js-apply');
    assert.deepEqual(Object.keys(owners(created)), ['js-apply/Apply']);
    assert.deepEqual((await apply(cm({ a: '2', b: '1' }), 'js-apply')).data, { a: '2', b: '1' });
    assert.deepEqual(await conflictOf(apply(cm({ a: '3' }), 'js-other')), {
      code: 409,
      message: 'Apply failed with 1 conflict: conflict with "js-apply": .data.a',
    });
    const forced = await apply(cm({ a: '3' }), 'js-other', true);
    assert.deepEqual(forced.data, { a: '3', b: '1' });
    assert.deepEqual(owners(forced), {
      'js-apply/Apply': { 'f:data': { 'f:b': {} } },
      'js-other/Apply': { 'f:data': { 'f:a': {} } },
    });

    const policy = (spec: Record<string, unknown>) => ({
      apiVersion: 'dkc.io/v1alpha1',
      kind: 'NodeConfigPolicy',
      metadata: { name: 'js-apply' },
      spec,
    });
    await apply(policy({ allowedFields: ['maxPods'] }), 'js-apply');
    assert.deepEqual((await apply(policy({ allowedFields: ['maxPods'], enforcement: 'Warn' }), 'js-apply')).spec, {
      allowedFields: ['maxPods'],
      enforcement: 'Warn',
    });
    assert.deepEqual(await conflictOf(apply(policy({ enforcement: 'Deny' }), 'js-other')), {
      code: 409,
      message: 'Apply failed with 1 conflict: conflict with "js-apply": .spec.enforcement',
    });
    // A second manager adds to the set without conflict: items are owned one by one.
    const merged = await apply(policy({ allowedFields: ['eventRecordQPS'] }), 'js-other');
    assert.deepEqual(merged.spec?.['allowedFields'], ['maxPods', 'eventRecordQPS']);
  });
  it('kubernetes-fluent-client: apply, apply again, a conflict, forced', async () => {
    // The client reads the default kubeconfig (KUBECONFIG) on every call.
    process.env['KUBECONFIG'] = server.kubeconfig;
    const cm = (data: Record<string, string>) => ({ metadata: { name: 'fluent-apply', namespace: 'default' }, data });
    const created = await K8s(kind.ConfigMap).Apply(cm({ a: '1' }));
    assert.deepEqual(owners(created as Obj), { 'pepr/Apply': { 'f:data': { 'f:a': {} } } });
    assert.deepEqual((await K8s(kind.ConfigMap).Apply(cm({ a: '2', b: '1' }))).data, { a: '2', b: '1' });

    // Another manager takes .data.a; the client's next apply of it is kube-apiserver's 409, until it forces.
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(server.kubeconfig);
    const other = { apiVersion: 'v1', kind: 'ConfigMap', ...cm({ a: '3' }) };
    await k8s.KubernetesObjectApi.makeApiClient(kc).patch(
      other,
      undefined,
      undefined,
      'fluent-other',
      true,
      k8s.PatchStrategy.ServerSideApply,
    );
    const refused = await K8s(kind.ConfigMap)
      .Apply(cm({ a: '4', b: '1' }))
      .then(
        () => assert.fail('the conflicting apply went through'),
        (err: { status: number; data: { message?: string } }) => err,
      );
    assert.equal(refused.status, 409);
    assert.equal(refused.data.message, 'Apply failed with 1 conflict: conflict with "fluent-other": .data.a');
    const forced = await K8s(kind.ConfigMap).Apply(cm({ a: '4', b: '1' }), { force: true });
    assert.deepEqual(forced.data, { a: '4', b: '1' });
    assert.deepEqual(Object.keys(owners(forced as Obj)), ['pepr/Apply']);
  });
});
