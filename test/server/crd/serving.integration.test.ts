// CustomResourceDefinition serving against a real `dkc server`: the CRD's own validation, names conflicts
// (NamesAccepted=False, nothing served), the shipped CRDs installed at start, generation, and a CRD created on one
// replica served by another (both follow the CRDs through their own watch caches).

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { RestClient, type ApiError } from '../../../src/client/index.js';
import { startServer, type RunningServer } from '../../helpers/server.js';
import { waitFor } from '../../helpers/wait.js';

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

function crd(
  name: string,
  group: string,
  plural: string,
  kind: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name },
    spec: {
      group,
      scope: 'Cluster',
      names: { plural, singular: plural.replace(/s$/, ''), kind },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        },
      ],
      ...extra,
    },
  };
}

interface CrdObject {
  metadata: { generation?: number };
  status?: { conditions?: { type: string; status: string; reason?: string; message?: string }[] };
}

async function status(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (err) {
    return err as ApiError;
  }
  assert.fail('expected the request to fail');
}

let server: RunningServer;
let client: RestClient;

before(async () => {
  server = await startServer();
  client = await RestClient.fromKubeconfig(server.kubeconfig);
});

after(async () => {
  client?.close();
  await server?.cleanup();
});

describe('CustomResourceDefinition serving', () => {
  it('installs the shipped NodeConfigRollout CRD at start, Established', async () => {
    const got = await client.get<CrdObject>(`${CRDS}/nodeconfigrollouts.dkc.io`);
    assert.ok(got.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True'));
  });

  it('validates the CRD itself with apiextensions field paths', async () => {
    const bad = crd('things.example.dkc.io', 'example', 'things', 'Thing', { scope: 'Galaxy' });
    const err = await status(client.create(CRDS, bad));
    assert.equal(err.code, 422);
    assert.match(
      err.message,
      /metadata\.name: Invalid value: "things\.example\.dkc\.io": must be spec\.names\.plural\+"\."\+spec\.group/,
    );
    assert.match(err.message, /spec\.group: Invalid value: "example": should be a domain with at least one dot/);
    assert.match(err.message, /spec\.scope: Unsupported value: "Galaxy": supported values: "Cluster", "Namespaced"/);
    const noStorage = crd('things.example.dkc.io', 'example.dkc.io', 'things', 'Thing');
    (noStorage['spec'] as { versions: { storage: boolean }[] }).versions[0]!.storage = false;
    const err2 = await status(client.create(CRDS, noStorage));
    assert.match(
      err2.message,
      /spec\.versions: Invalid value: .*must have exactly one version marked as storage version/,
    );
  });

  it('does not serve a CRD whose names another CRD of the group holds', async () => {
    await client.create(CRDS, crd('things.example.dkc.io', 'example.dkc.io', 'things', 'Thing'));
    await client.create('/apis/example.dkc.io/v1/things', { metadata: { name: 't1' } });
    const clash = await client.create<CrdObject>(
      CRDS,
      crd('stuffs.example.dkc.io', 'example.dkc.io', 'stuffs', 'Thing'),
    );
    const names = clash.status?.conditions?.find((c) => c.type === 'NamesAccepted');
    assert.equal(names?.status, 'False');
    assert.match(names?.message ?? '', /"Thing" is already in use/);
    assert.equal(clash.status?.conditions?.find((c) => c.type === 'Established')?.status, 'False');
    assert.equal((await status(client.list('/apis/example.dkc.io/v1/stuffs'))).code, 404);
    assert.equal((await client.list<{ items: unknown[] }>('/apis/example.dkc.io/v1/things')).items.length, 1);
  });

  it('moves a CRD generation with its spec, not with its status', async () => {
    const before = await client.get<CrdObject>(`${CRDS}/things.example.dkc.io`);
    await client.patch(`${CRDS}/things.example.dkc.io`, 'merge', { spec: { names: { shortNames: ['th'] } } });
    const after = await client.get<CrdObject>(`${CRDS}/things.example.dkc.io`);
    assert.equal(after.metadata.generation, (before.metadata.generation ?? 0) + 1);
    const discovery = await client.get<{ resources: { name: string; shortNames?: string[] }[] }>(
      '/apis/example.dkc.io/v1',
    );
    assert.deepEqual(discovery.resources.find((r) => r.name === 'things')?.shortNames, ['th']);
    // The objects survive a change of their CRD.
    assert.equal((await client.list<{ items: unknown[] }>('/apis/example.dkc.io/v1/things')).items.length, 1);
  });

  it('answers a dry-run CRD create without serving it', async () => {
    await client.create(CRDS, crd('drys.example.dkc.io', 'example.dkc.io', 'drys', 'Dry'), {
      query: { dryRun: 'All' },
    });
    assert.equal((await status(client.list('/apis/example.dkc.io/v1/drys'))).code, 404);
    assert.equal((await status(client.get(`${CRDS}/drys.example.dkc.io`))).code, 404);
  });

  it('publishes the served custom kinds in /openapi/v2, tagged by content, and follows CRD changes', async () => {
    const v2 = (headers: Record<string, string> = {}) =>
      client.request<string>({
        method: 'GET',
        path: '/openapi/v2',
        accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf',
        headers,
      });
    const first = await v2();
    assert.equal(first.headers['content-type'], 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
    const etag = first.headers.etag ?? '';
    assert.match(etag, /^"[0-9A-F]{128}"$/);
    assert.ok(first.body.includes('io.dkc.v1alpha1.NodeConfigRollout'));
    assert.equal((await status(v2({ 'if-none-match': etag }))).code, 304);
    assert.equal((await v2()).headers.etag, etag, 'the same document keeps its tag');

    const gizmo = {
      type: 'object',
      properties: { spec: { type: 'object', properties: { colour: { type: 'string' } } } },
    };
    const gizmos = crd('gizmos.example.dkc.io', 'example.dkc.io', 'gizmos', 'Gizmo');
    (gizmos['spec'] as { versions: { schema: unknown }[] }).versions[0]!.schema = { openAPIV3Schema: gizmo };
    await client.create(CRDS, gizmos);
    const withGizmo = await waitFor('Gizmo in /openapi/v2', async () => {
      const r = await v2();
      return r.body.includes('io.dkc.example.v1.GizmoList') ? r : undefined;
    });
    assert.notEqual(withGizmo.headers.etag, etag);
    assert.equal((await v2({ 'if-none-match': etag })).status, 200);

    await client.delete(`${CRDS}/gizmos.example.dkc.io`);
    const gone = await waitFor('Gizmo gone from /openapi/v2', async () => {
      const r = await v2();
      return r.body.includes('io.dkc.example.v1.Gizmo') ? undefined : r;
    });
    assert.equal(gone.headers.etag, etag);
  });
});
