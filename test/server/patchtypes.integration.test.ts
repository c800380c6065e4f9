// The patch types each endpoint lists in /openapi/v3 and /openapi/v2 are exactly those it accepts, for every patch
// endpoint a running server serves (built-in and custom kinds, their status subresources). A client choosing its
// patch from the documents (kubectl apply) must get one the endpoint takes: each listed type reaches the object (a 404
// for a name that does not exist; server-side apply, which creates a missing object, gets as far as checking the
// applied object's kind), every other type is refused with 415, and the 415 names the listed ones.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { createRequire } from 'node:module';
import type * as Protobuf from 'protobufjs';
import { RestClient, type ApiError } from '../../src/client/index.js';
import { loadKubeconfig } from '../../src/client/kubeconfig.js';
import { startServer, type RunningServer } from '../helpers/server.js';

/** Every patch media type a Kubernetes client may send, and one that is no patch type. */
const CANDIDATES = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
  'application/json',
];
const APPLY = 'application/apply-patch+yaml';
const BODY: Record<string, string> = { 'application/json-patch+json': '[]', [APPLY]: 'metadata: {}' };

interface Endpoint {
  /** The path as the documents name it, e.g. /apis/dkc.io/v1alpha1/nodeconfigrollouts/{name}/status. */
  template: string;
  /** A request path for an object that does not exist. */
  missing: string;
  kind: string;
}

interface ApiResource {
  name: string;
  kind: string;
  namespaced: boolean;
  verbs: string[];
}

// Only the parts of gnostic's openapi_v2.Document that say what a patch operation consumes, written here apart from
// the server's encoder.
const v2Descriptor = {
  nested: {
    Document: { fields: { paths: { id: 8, type: 'Paths' } } },
    Paths: { fields: { path: { id: 2, type: 'NamedPathItem', rule: 'repeated' } } },
    NamedPathItem: { fields: { name: { id: 1, type: 'string' }, value: { id: 2, type: 'PathItem' } } },
    PathItem: { fields: { patch: { id: 8, type: 'Operation' } } },
    Operation: { fields: { consumes: { id: 7, type: 'string', rule: 'repeated' } } },
  },
};

let server: RunningServer;
let client: RestClient;

async function v2Bytes(): Promise<Buffer> {
  const config = await loadKubeconfig(server.kubeconfig);
  return new Promise((resolve, reject) => {
    const options = {
      ca: config.ca,
      cert: config.cert,
      key: config.key,
      headers: { Accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf' },
    };
    request(`${config.server}/openapi/v2`, options, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        res.statusCode === 200 ? resolve(Buffer.concat(chunks)) : reject(new Error(`/openapi/v2: ${res.statusCode}`)),
      );
    })
      .on('error', reject)
      .end();
  });
}

/** The patch types of each path in /openapi/v2. */
async function v2Consumes(): Promise<Map<string, string[]>> {
  const pb = createRequire(import.meta.url)('protobufjs/light.js') as typeof Protobuf;
  const type = pb.Root.fromJSON(v2Descriptor).lookupType('Document');
  const doc = type.toObject(type.decode(await v2Bytes()), { arrays: true }) as {
    paths?: { path: { name: string; value: { patch?: { consumes: string[] } } }[] };
  };
  return new Map(
    (doc.paths?.path ?? []).flatMap((p) => (p.value.patch ? [[p.name, p.value.patch.consumes] as const] : [])),
  );
}

/** The patch types of each path in /openapi/v3's document for `groupVersion`. */
async function v3Consumes(groupVersion: string): Promise<Map<string, string[]>> {
  const root = await client.get<{ paths: Record<string, { serverRelativeURL: string }> }>('/openapi/v3');
  const url =
    root.paths[groupVersion.includes('/') ? `apis/${groupVersion}` : `api/${groupVersion}`]!.serverRelativeURL;
  const [path, query] = url.split('?');
  type Operation = { 'x-kubernetes-action': string; requestBody?: { content: Record<string, unknown> } };
  const doc = await client.get<{ paths: Record<string, { patch?: Operation }> }>(path!, {
    query: Object.fromEntries(new URLSearchParams(query)),
  });
  // A proxy's PATCH is a connect operation, forwarded to the node: not a patch of an object.
  const patches = Object.entries(doc.paths).flatMap(([p, { patch }]) =>
    patch?.['x-kubernetes-action'] === 'patch' ? [[p, patch] as const] : [],
  );
  return new Map(patches.map(([p, patch]) => [p, Object.keys(patch.requestBody?.content ?? {})]));
}

/** Every patch endpoint discovery announces, by group-version. */
async function patchEndpoints(): Promise<Map<string, Endpoint[]>> {
  const groups = await client.get<{ groups: { versions: { groupVersion: string }[] }[] }>('/apis');
  const versions = ['v1', ...groups.groups.flatMap((g) => g.versions.map((v) => v.groupVersion))];
  const out = new Map<string, Endpoint[]>();
  for (const gv of versions) {
    const base = gv === 'v1' ? '/api/v1' : `/apis/${gv}`;
    const list = await client.get<{ resources: ApiResource[] }>(base);
    const found: Endpoint[] = [];
    for (const r of list.resources) {
      if (!r.verbs.includes('patch')) continue;
      const [plural, sub] = r.name.split('/');
      if (sub !== undefined && sub !== 'status') continue;
      const scope = r.namespaced ? '/namespaces/{namespace}' : '';
      const suffix = sub ? `/${sub}` : '';
      found.push({
        template: `${base}${scope}/${plural}/{name}${suffix}`,
        missing: `${base}${r.namespaced ? '/namespaces/default' : ''}/${plural}/no-such-object${suffix}`,
        kind: r.kind,
      });
    }
    out.set(gv, found);
  }
  return out;
}

async function patchStatus(path: string, contentType: string): Promise<{ code: number; message: string }> {
  const query = contentType === APPLY ? { fieldManager: 'patchtypes-test' } : undefined;
  try {
    await client.request({
      method: 'PATCH',
      path,
      body: BODY[contentType] ?? '{}',
      contentType,
      ...(query ? { query } : {}),
    });
  } catch (err) {
    const { code, message } = (err as ApiError).status;
    return { code: code ?? 0, message: message ?? '' };
  }
  assert.fail(`PATCH ${path} (${contentType}) succeeded on an object that does not exist`);
}

before(async () => {
  server = await startServer();
  client = await RestClient.fromKubeconfig(server.kubeconfig);
});

after(async () => {
  client?.close();
  await server?.cleanup();
});

test('each patch endpoint lists in /openapi/v3 and /openapi/v2 exactly the patch types it accepts', async () => {
  const v2 = await v2Consumes();
  const byVersion = await patchEndpoints();
  for (const [gv, found] of byVersion) {
    const v3 = await v3Consumes(gv);
    for (const e of found) {
      const listed = v3.get(e.template);
      assert.ok(listed, `${e.template} has a patch operation in /openapi/v3`);
      assert.deepEqual(
        [...(v2.get(e.template) ?? [])].sort(),
        [...listed].sort(),
        `${e.template}: /openapi/v2 lists what /openapi/v3 lists`,
      );
      for (const type of CANDIDATES) {
        const status = await patchStatus(e.missing, type);
        if (listed.includes(type) && type === APPLY && !e.template.endsWith('/status')) {
          // An apply would create the object; this one names no kind, as kube-apiserver answers it.
          assert.deepEqual(
            status,
            { code: 400, message: 'invalid object type: /, Kind=' },
            `${e.template} lists ${type}, so an apply reaches the object`,
          );
        } else if (listed.includes(type)) {
          assert.equal(
            status.code,
            404,
            `${e.template} lists ${type}, so a patch of that type reaches the object: ${status.message}`,
          );
        } else {
          assert.equal(status.code, 415, `${e.template} does not list ${type}, so it refuses it: ${status.message}`);
          assert.match(
            status.message,
            /^the body of the request was in an unknown format - accepted media types include: /,
          );
          assert.deepEqual(
            status.message
              .replace(/^.*include: /, '')
              .split(', ')
              .sort(),
            [...listed].sort(),
            `${e.template}: the 415 names what the documents list`,
          );
        }
      }
    }
  }
  // What is served: strategic merge patch for the built-in kinds, not for the custom ones, and server-side apply for
  // both (as kube-apiserver).
  const nodes = (await v3Consumes('v1')).get('/api/v1/nodes/{name}');
  assert.deepEqual(nodes, [
    APPLY,
    'application/json-patch+json',
    'application/merge-patch+json',
    'application/strategic-merge-patch+json',
  ]);
  const rollouts = (await v3Consumes('dkc.io/v1alpha1')).get('/apis/dkc.io/v1alpha1/nodeconfigrollouts/{name}');
  assert.deepEqual(rollouts, [APPLY, 'application/json-patch+json', 'application/merge-patch+json']);
  assert.deepEqual(
    (await v3Consumes('dkc.io/v1alpha1')).get('/apis/dkc.io/v1alpha1/nodeconfigrollouts/{name}/status'),
    rollouts,
  );
  assert.ok(
    [...byVersion.values()].flat().some((e) => e.template.endsWith('/status')),
    'status subresources are among the endpoints',
  );
});
