// The OpenAPI documents: structure checks on /openapi/v2, /openapi/v3 and the per-group-version documents,
// then the real kubectl 1.32 and 1.20 against a small HTTP stub serving them: `explain` renders our
// schemas, 1.32 `edit` validates through v3 alone, and 1.20 `edit` accepts the protobuf v2 answer.

import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import {
  OPENAPI_V2_CONTENT_TYPE,
  openapiV2Document,
  openapiV2Protobuf,
  openapiV3Document,
  openapiV3Hash,
  openapiV3PathFor,
  openapiV3Root,
  type OpenApiV3Document,
  type ResourceInfo,
  type ServedResource,
} from '../../src/server/openapi.js';
import { acceptedPatchMediaTypes } from '../../src/server/patchtypes.js';
import { encodeSwaggerDocument } from '../../src/server/gnostic.js';
import { kubectl } from '../helpers/kubectl.js';

const CORE = 'io.k8s.api.core.v1.';
const META = 'io.k8s.apimachinery.pkg.apis.meta.v1.';

/** The reference /api/v1 discovery list. */
const discoveryV1 = [
  {
    name: 'nodes',
    singularName: 'node',
    namespaced: false,
    kind: 'Node',
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
    shortNames: ['no'],
  },
  {
    name: 'nodes/proxy',
    singularName: '',
    namespaced: false,
    kind: 'NodeProxyOptions',
    verbs: ['create', 'delete', 'get', 'patch', 'update'],
  },
  { name: 'nodes/status', singularName: '', namespaced: false, kind: 'Node', verbs: ['get', 'patch', 'update'] },
  {
    name: 'configmaps',
    singularName: 'configmap',
    namespaced: true,
    kind: 'ConfigMap',
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    shortNames: ['cm'],
  },
  {
    name: 'events',
    singularName: 'event',
    namespaced: true,
    kind: 'Event',
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    shortNames: ['ev'],
  },
  {
    name: 'pods',
    singularName: 'pod',
    namespaced: true,
    kind: 'Pod',
    verbs: ['get', 'list', 'watch'],
    shortNames: ['po'],
  },
  {
    name: 'namespaces',
    singularName: 'namespace',
    namespaced: false,
    kind: 'Namespace',
    verbs: ['get', 'list', 'watch'],
    shortNames: ['ns'],
  },
];

const coreResources: ResourceInfo[] = discoveryV1
  .filter((r) => !r.name.includes('/'))
  .map((r) => ({
    plural: r.name,
    kind: r.kind,
    namespaced: r.namespaced,
    verbs: r.verbs,
    subresources: discoveryV1.filter((s) => s.name.startsWith(`${r.name}/`)).map((s) => s.name.split('/')[1] as string),
    patchTypes: acceptedPatchMediaTypes(false),
  }));

const leaseResources: ResourceInfo[] = [
  {
    plural: 'leases',
    kind: 'Lease',
    namespaced: true,
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: [],
    patchTypes: acceptedPatchMediaTypes(false),
  },
];

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => {
  assert.ok(v !== null && typeof v === 'object' && !Array.isArray(v), `expected an object, got ${JSON.stringify(v)}`);
  return v as Json;
};
const schemaOf = (doc: OpenApiV3Document, name: string): Json => obj(doc.components.schemas[name]);
const propOf = (doc: OpenApiV3Document, name: string, prop: string): Json =>
  obj(obj(schemaOf(doc, name).properties)[prop]);
const params = (op: Json): Json[] => ((op.parameters as Json[] | undefined) ?? []).map(obj);

function allRefs(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) node.forEach((n) => allRefs(n, out));
  else if (node !== null && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string') out.push(v);
      else allRefs(v, out);
    }
  }
  return out;
}

// --- /openapi/v2 --------------------------------------------------------------------------------------

/** A length-delimited protobuf field, encoded here independently of the encoder under test. */
function ld(field: number, bytes: number[]): number[] {
  const varint = (n: number): number[] => (n < 0x80 ? [n] : [(n & 0x7f) | 0x80, ...varint(n >>> 7)]);
  return [...varint((field << 3) | 2), ...varint(bytes.length), ...bytes];
}
const str = (field: number, s: string): number[] => ld(field, [...Buffer.from(s)]);

test('/openapi/v2 encodes gnostic openapi_v2.Document with its field numbers, extensions as YAML', () => {
  const bytes = encodeSwaggerDocument({
    swagger: '2.0',
    info: { title: 'K', version: 'v' },
    paths: {},
    definitions: {
      A: {
        type: 'object',
        required: ['b'],
        properties: { b: { $ref: '#/definitions/C', description: 'd' } },
        nullable: true,
        'x-g': [{ k: 1 }],
      },
    },
  });
  const schemaB = [...str(1, '#/definitions/C'), ...str(4, 'd')];
  const schemaA = [
    ...str(19, 'b'),
    ...ld(22, str(1, 'object')),
    ...ld(25, ld(1, [...str(1, 'b'), ...ld(2, schemaB)])),
    ...ld(31, [...str(1, 'x-g'), ...ld(2, str(2, '[{"k":1}]\n'))]),
  ];
  const expected = [
    ...str(1, '2.0'),
    ...ld(2, [...str(1, 'K'), ...str(2, 'v')]),
    ...ld(8, []),
    ...ld(9, ld(1, [...str(1, 'A'), ...ld(2, schemaA)])),
  ];
  assert.deepEqual([...bytes], expected);
  // Go's mime parser rejects '@', which is only legal in the Accept header kubectl sends.
  assert.ok(!OPENAPI_V2_CONTENT_TYPE.includes('@'));
});

const bool = (field: number): number[] => [
  field < 16 ? field << 3 : ((field << 3) & 0x7f) | 0x80,
  ...(field < 16 ? [] : [field >>> 4]),
  1,
];

test("/openapi/v2 encodes a path item's patch operation and parameters with gnostic's field numbers", () => {
  const bytes = encodeSwaggerDocument({
    swagger: '2.0',
    info: { title: 'K', version: 'v' },
    paths: {
      '/p': {
        patch: {
          operationId: 'o',
          consumes: ['a'],
          parameters: [
            { name: 'body', in: 'body', required: true, schema: { $ref: '#/definitions/P' } },
            { name: 'q', in: 'query', type: 'string', uniqueItems: true },
          ],
          responses: { '200': { description: 'OK', schema: { $ref: '#/definitions/P' } } },
          'x-k': { a: 1 },
        },
        parameters: [{ name: 'name', in: 'path', required: true, type: 'string' }],
      },
    },
    definitions: {},
  });
  const body = ld(1, ld(1, [...str(2, 'body'), ...str(3, 'body'), ...bool(4), ...ld(5, str(1, '#/definitions/P'))]));
  const query = ld(1, ld(2, ld(3, [...str(2, 'query'), ...str(4, 'q'), ...str(6, 'string'), ...bool(20)])));
  const response = ld(1, [
    ...str(1, '200'),
    ...ld(2, ld(1, [...str(1, 'OK'), ...ld(2, ld(1, str(1, '#/definitions/P')))])),
  ]);
  const operation = [
    ...str(5, 'o'),
    ...str(7, 'a'),
    ...ld(8, body),
    ...ld(8, query),
    ...ld(9, response),
    ...ld(13, [...str(1, 'x-k'), ...ld(2, str(2, '{"a":1}\n'))]),
  ];
  const path = ld(1, ld(2, ld(4, [...bool(1), ...str(2, 'path'), ...str(4, 'name'), ...str(5, 'string')])));
  const expected = [
    ...str(1, '2.0'),
    ...ld(2, [...str(1, 'K'), ...str(2, 'v')]),
    ...ld(8, ld(2, [...str(1, '/p'), ...ld(2, [...ld(8, operation), ...ld(9, path)])])),
  ];
  assert.deepEqual([...bytes], expected);
});

const widgetKind: ServedResource = {
  group: 'example.dkc.io',
  version: 'v1',
  plural: 'widgets',
  kind: 'Widget',
  namespaced: true,
  verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
  subresources: ['status'],
  patchTypes: acceptedPatchMediaTypes(true),
  schema: {
    name: 'io.dkc.example.v1.Widget',
    schema: {
      type: 'object',
      properties: {
        metadata: { type: 'object' },
        spec: {
          type: 'object',
          required: ['size'],
          properties: {
            size: { type: 'string', enum: ['small'] },
            port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
          },
        },
      },
    },
  },
};

test('/openapi/v2 carries each custom kind with its list and the built-in definitions they reference, all resolved', () => {
  const doc = openapiV2Document([widgetKind], 'v1.22.17-dkc.0');
  assert.deepEqual(doc.info, { title: 'Kubernetes', version: 'v1.22.17-dkc.0' });
  const names = Object.keys(doc.definitions);
  assert.deepEqual(names, [...names].sort());
  const widget = obj(doc.definitions['io.dkc.example.v1.Widget']);
  assert.deepEqual(widget['x-kubernetes-group-version-kind'], [
    { group: 'example.dkc.io', version: 'v1', kind: 'Widget' },
  ]);
  const props = obj(widget.properties);
  assert.deepEqual(Object.keys(props).sort(), ['apiVersion', 'kind', 'metadata', 'spec']);
  assert.equal(obj(props.metadata).$ref, `#/definitions/${META}ObjectMeta`);
  assert.deepEqual(obj(obj(obj(props.spec).properties).port), { 'x-kubernetes-int-or-string': true });
  const list = obj(doc.definitions['io.dkc.example.v1.WidgetList']);
  assert.deepEqual(list['x-kubernetes-group-version-kind'], [
    { group: 'example.dkc.io', version: 'v1', kind: 'WidgetList' },
  ]);
  assert.equal(obj(obj(obj(list.properties).items).items).$ref, '#/definitions/io.dkc.example.v1.Widget');
  // Built-in kinds are left to the server's validation: kubectl 1.20 validates every kind it finds here.
  assert.ok(
    names.includes(`${META}ObjectMeta`) &&
      names.includes(`${META}ListMeta`) &&
      names.includes(`${META}ManagedFieldsEntry`),
  );
  assert.deepEqual(
    names.filter(
      (n) => n.startsWith('io.k8s.') && obj(doc.definitions[n])['x-kubernetes-group-version-kind'] !== undefined,
    ),
    [],
  );
  // kubectl refuses the whole document over one dangling reference, and reads neither allOf nor oneOf.
  for (const r of allRefs(doc.definitions)) {
    assert.ok(r.startsWith('#/definitions/') && names.includes(r.slice('#/definitions/'.length)), r);
  }
  const text = JSON.stringify(doc.definitions);
  assert.doesNotMatch(text, /"(allOf|oneOf|anyOf)"/);
  assert.equal(
    obj(obj(obj(doc.definitions[`${META}ObjectMeta`]).properties).creationTimestamp).$ref,
    `#/definitions/${META}Time`,
  );
  assert.deepEqual(openapiV2Document([], 'v1').definitions, {});
});

test("/openapi/v2 publishes each endpoint's patch operation with the patch types it accepts, its references resolved", () => {
  const nodes: ServedResource = {
    ...(coreResources.find((r) => r.plural === 'nodes') as ResourceInfo),
    group: '',
    version: 'v1',
  };
  const doc = openapiV2Document([widgetKind, nodes], 'v1');
  const widgets = '/apis/example.dkc.io/v1/namespaces/{namespace}/widgets/{name}';
  assert.deepEqual(Object.keys(doc.paths), [
    '/api/v1/nodes/{name}',
    '/api/v1/nodes/{name}/status',
    widgets,
    `${widgets}/status`,
  ]);
  const patch = (path: string): Json => obj(doc.paths[path]?.patch);
  const apply = 'application/apply-patch+yaml';
  assert.deepEqual(patch(widgets).consumes, [apply, 'application/json-patch+json', 'application/merge-patch+json']);
  assert.deepEqual(patch(`${widgets}/status`).consumes, [
    apply,
    'application/json-patch+json',
    'application/merge-patch+json',
  ]);
  assert.deepEqual(patch('/api/v1/nodes/{name}').consumes, [
    apply,
    'application/json-patch+json',
    'application/merge-patch+json',
    'application/strategic-merge-patch+json',
  ]);
  assert.deepEqual(patch(widgets)['x-kubernetes-group-version-kind'], {
    group: 'example.dkc.io',
    version: 'v1',
    kind: 'Widget',
  });
  assert.equal(patch(widgets)['x-kubernetes-action'], 'patch');
  assert.equal(patch(widgets).operationId, 'patchExampleV1NamespacedWidget');
  assert.deepEqual(params(patch(widgets))[0], {
    name: 'body',
    in: 'body',
    required: true,
    schema: { $ref: `#/definitions/${META}Patch` },
  });
  assert.ok(
    params(patch(widgets)).some((p) => p.name === 'fieldValidation' && p.in === 'query' && p.type === 'string'),
  );
  assert.deepEqual(
    doc.paths[widgets]?.parameters?.map((p) => [p.name, p.in, p.type]),
    [
      ['name', 'path', 'string'],
      ['namespace', 'path', 'string'],
      ['pretty', 'query', 'string'],
    ],
  );
  // A response names its kind where the document defines it (the custom kinds), and nothing it does not define.
  assert.deepEqual(obj(obj(patch(widgets).responses)['200']).schema, {
    $ref: '#/definitions/io.dkc.example.v1.Widget',
  });
  assert.deepEqual(obj(obj(patch('/api/v1/nodes/{name}').responses)['200']), { description: 'OK' });
  for (const r of allRefs(doc.paths)) assert.ok(Object.hasOwn(doc.definitions, r.slice('#/definitions/'.length)), r);
  assert.deepEqual(openapiV2Document([], 'v1').paths, {});
});

test('/openapi/v2 bytes and entity tag follow the custom kinds, and stay put while they do', () => {
  const none = openapiV2Protobuf([], 'v1');
  assert.match(none.etag, /^"[0-9A-F]{128}"$/);
  assert.equal(openapiV2Protobuf([], 'v1').etag, none.etag);
  const withWidget = openapiV2Protobuf([widgetKind], 'v1');
  assert.notEqual(withWidget.etag, none.etag);
  assert.ok(withWidget.body.length > none.body.length);
  const changed = openapiV2Protobuf(
    [
      {
        ...widgetKind,
        schema: {
          name: 'io.dkc.example.v1.Widget',
          schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        },
      },
    ],
    'v1',
  );
  assert.notEqual(changed.etag, withWidget.etag);
  assert.equal(openapiV2Protobuf([], 'v1').etag, none.etag);
});

// --- /openapi/v3 root ---------------------------------------------------------------------------------

test('/openapi/v3 lists each group-version under its path with a content hash', () => {
  const root = openapiV3Root(['v1', 'coordination.k8s.io/v1']);
  assert.deepEqual(Object.keys(root.paths), ['api/v1', 'apis/coordination.k8s.io/v1']);
  for (const [path, entry] of Object.entries(root.paths)) {
    assert.match(
      entry.serverRelativeURL,
      new RegExp(`^/openapi/v3/${path.replace(/\./g, '\\.')}\\?hash=[0-9A-F]{128}$`),
    );
  }
  assert.deepEqual(openapiV3Root(['v1', 'coordination.k8s.io/v1']), root, 'stable across calls');
  assert.deepEqual(openapiV3Root(['coordination.k8s.io/v1', 'v1']), root, 'independent of input order');
  assert.notEqual(
    root.paths['api/v1']?.serverRelativeURL.split('=')[1],
    root.paths['apis/coordination.k8s.io/v1']?.serverRelativeURL.split('=')[1],
  );
  assert.equal(openapiV3PathFor('v1'), 'api/v1');
  assert.equal(openapiV3PathFor('coordination.k8s.io/v1'), 'apis/coordination.k8s.io/v1');
});

test('/openapi/v3 hashes the documents it is given, so a changed document gets a new URL', () => {
  const full = openapiV3Document('v1', coreResources);
  const fewer = openapiV3Document(
    'v1',
    coreResources.filter((r) => r.plural !== 'pods'),
  );
  const a = openapiV3Root(['v1'], { v1: full }).paths['api/v1']?.serverRelativeURL;
  const b = openapiV3Root(['v1'], { v1: fewer }).paths['api/v1']?.serverRelativeURL;
  assert.equal(a, `/openapi/v3/api/v1?hash=${openapiV3Hash(full)}`);
  assert.notEqual(a, b);
  assert.equal(
    openapiV3Root(['v1'], { v1: openapiV3Document('v1', coreResources) }).paths['api/v1']?.serverRelativeURL,
    a,
  );
});

// --- /openapi/v3/api/v1 -------------------------------------------------------------------------------

const doc = openapiV3Document('v1', coreResources);

test('the v1 document is OpenAPI 3.0 with every referenced schema present', () => {
  assert.equal(doc.openapi, '3.0.0');
  assert.equal(doc.info.title, 'Kubernetes');
  for (const r of allRefs(doc)) {
    assert.ok(r.startsWith('#/components/schemas/'), r);
    assert.ok(doc.components.schemas[r.slice('#/components/schemas/'.length)], `dangling ${r}`);
  }
  for (const name of [
    'Node',
    'NodeList',
    'NodeSpec',
    'NodeStatus',
    'NodeConfigSource',
    'ConfigMapNodeConfigSource',
    'NodeConfigStatus',
    'NodeCondition',
    'NodeAddress',
    'NodeSystemInfo',
    'NodeDaemonEndpoints',
    'DaemonEndpoint',
    'Taint',
    'ConfigMap',
    'ConfigMapList',
    'Namespace',
    'NamespaceList',
    'NamespaceSpec',
    'NamespaceStatus',
    'Event',
    'EventList',
    'EventSource',
    'ObjectReference',
    'Pod',
    'PodList',
  ]) {
    assert.ok(doc.components.schemas[`${CORE}${name}`], `missing ${CORE}${name}`);
  }
  for (const name of ['ObjectMeta', 'ListMeta', 'Time', 'MicroTime', 'Status']) {
    assert.ok(doc.components.schemas[`${META}${name}`], `missing ${META}${name}`);
  }
  assert.ok(doc.components.schemas['io.k8s.apimachinery.pkg.api.resource.Quantity']);
  // Lease belongs to its own group-version's document.
  assert.equal(doc.components.schemas['io.k8s.api.coordination.v1.Lease'], undefined);
});

test('every schema and every property carries a description', () => {
  for (const [name, schema] of Object.entries(doc.components.schemas)) {
    assert.equal(typeof schema.description, 'string', `${name} has no description`);
    assert.ok((schema.description as string).length > 10, name);
    for (const [prop, value] of Object.entries((schema.properties as Json | undefined) ?? {})) {
      assert.equal(typeof obj(value).description, 'string', `${name}.${prop} has no description`);
    }
  }
});

test('top-level kinds carry x-kubernetes-group-version-kind', () => {
  assert.deepEqual(schemaOf(doc, `${CORE}Node`)['x-kubernetes-group-version-kind'], [
    { group: '', version: 'v1', kind: 'Node' },
  ]);
  assert.deepEqual(schemaOf(doc, `${CORE}ConfigMapList`)['x-kubernetes-group-version-kind'], [
    { group: '', version: 'v1', kind: 'ConfigMapList' },
  ]);
  assert.deepEqual(schemaOf(doc, `${META}Status`)['x-kubernetes-group-version-kind'], [
    { group: '', version: 'v1', kind: 'Status' },
  ]);
  assert.equal(schemaOf(doc, `${CORE}NodeSpec`)['x-kubernetes-group-version-kind'], undefined);
});

test('the configSource schemas say what is required, forbidden and deprecated', () => {
  const ref = schemaOf(doc, `${CORE}ConfigMapNodeConfigSource`);
  assert.deepEqual(ref.required, ['namespace', 'name', 'kubeletConfigKey']);
  assert.match(
    propOf(doc, `${CORE}ConfigMapNodeConfigSource`, 'uid').description as string,
    /uid must not be set in spec.*required in status/s,
  );
  assert.match(
    propOf(doc, `${CORE}ConfigMapNodeConfigSource`, 'resourceVersion').description as string,
    /Forbidden in spec.*required in status/s,
  );
  const configSource = propOf(doc, `${CORE}NodeSpec`, 'configSource');
  assert.deepEqual(configSource.allOf, [{ $ref: `#/components/schemas/${CORE}NodeConfigSource` }]);
  assert.match(configSource.description as string, /deprecated/);
  assert.deepEqual(propOf(doc, `${CORE}NodeStatus`, 'config').allOf, [
    { $ref: `#/components/schemas/${CORE}NodeConfigStatus` },
  ]);
  assert.deepEqual(Object.keys(obj(schemaOf(doc, `${CORE}NodeConfigStatus`).properties)).sort(), [
    'active',
    'assigned',
    'error',
    'lastKnownGood',
  ]);
});

test('merge-list extensions match upstream for the lists strategic merge patch touches', () => {
  const podCIDRs = propOf(doc, `${CORE}NodeSpec`, 'podCIDRs');
  assert.equal(podCIDRs['x-kubernetes-patch-strategy'], 'merge');
  assert.equal(podCIDRs['x-kubernetes-list-type'], 'set');
  for (const prop of ['conditions', 'addresses']) {
    const list = propOf(doc, `${CORE}NodeStatus`, prop);
    assert.equal(list['x-kubernetes-patch-strategy'], 'merge', prop);
    assert.equal(list['x-kubernetes-patch-merge-key'], 'type', prop);
    assert.deepEqual(list['x-kubernetes-list-map-keys'], ['type'], prop);
  }
  assert.equal(propOf(doc, `${CORE}NodeSpec`, 'taints')['x-kubernetes-patch-strategy'], undefined);
  assert.equal(propOf(doc, `${META}ObjectMeta`, 'finalizers')['x-kubernetes-patch-strategy'], 'merge');
  assert.equal(propOf(doc, `${META}ObjectMeta`, 'ownerReferences')['x-kubernetes-patch-merge-key'], 'uid');
});

test('paths follow the verbs: item, collection, all-namespaces, status and proxy', () => {
  const node = obj(doc.paths['/api/v1/nodes/{name}']);
  assert.deepEqual(
    Object.keys(node)
      .filter((k) => k !== 'parameters')
      .sort(),
    ['delete', 'get', 'patch', 'put'],
  );
  assert.deepEqual(Object.keys(obj(doc.paths['/api/v1/nodes'])).sort(), ['get', 'parameters', 'post']);
  assert.deepEqual(Object.keys(obj(doc.paths['/api/v1/nodes/{name}/status'])).sort(), [
    'get',
    'parameters',
    'patch',
    'put',
  ]);
  assert.ok(doc.paths['/api/v1/namespaces/{namespace}/configmaps/{name}']);
  assert.ok(obj(doc.paths['/api/v1/namespaces/{namespace}/configmaps']).delete, 'deletecollection');
  assert.ok(obj(doc.paths['/api/v1/configmaps']).get, 'list across namespaces');
  // namespaces are get/list/watch only, pods too.
  assert.deepEqual(Object.keys(obj(doc.paths['/api/v1/namespaces/{name}'])).sort(), ['get', 'parameters']);
  assert.deepEqual(Object.keys(obj(doc.paths['/api/v1/namespaces'])).sort(), ['get', 'parameters']);
  assert.equal(doc.paths['/api/v1/namespaces/{namespace}/pods/{name}/status'], undefined);

  const patch = obj(node.patch);
  assert.equal(patch['x-kubernetes-action'], 'patch');
  assert.deepEqual(patch['x-kubernetes-group-version-kind'], { group: '', version: 'v1', kind: 'Node' });
  assert.equal(patch.operationId, 'patchCoreV1Node');
  assert.ok(obj(obj(patch.requestBody).content)['application/strategic-merge-patch+json']);
  assert.equal(obj(obj(node.get)).operationId, 'readCoreV1Node');
  assert.equal(
    obj(obj(doc.paths['/api/v1/namespaces/{namespace}/configmaps']).get).operationId,
    'listCoreV1NamespacedConfigMap',
  );

  const proxy = obj(doc.paths['/api/v1/nodes/{name}/proxy/{path}']);
  const proxyGet = obj(proxy.get);
  assert.equal(proxyGet['x-kubernetes-action'], 'connect');
  assert.deepEqual(proxyGet['x-kubernetes-group-version-kind'], { group: '', version: 'v1', kind: 'NodeProxyOptions' });
  assert.ok(doc.paths['/api/v1/nodes/{name}/proxy']);
});

test('every put, post and patch offers the fieldValidation query parameter', () => {
  let writes = 0;
  for (const [path, item] of Object.entries(doc.paths)) {
    if (path.includes('/proxy')) continue;
    for (const method of ['put', 'post', 'patch']) {
      const op = item[method];
      if (op === undefined) continue;
      writes++;
      assert.ok(
        params(obj(op)).some((p) => p.name === 'fieldValidation' && p.in === 'query'),
        `${method} ${path} lacks fieldValidation`,
      );
      assert.ok(obj(op)['x-kubernetes-group-version-kind'], `${method} ${path} lacks its GVK`);
    }
  }
  assert.ok(writes >= 10, `only ${writes} write operations`);
});

test('the coordination.k8s.io/v1 document serves leases', () => {
  const leases = openapiV3Document('coordination.k8s.io/v1', leaseResources);
  const item = obj(leases.paths['/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases/{name}']);
  const patch = obj(item.patch);
  assert.deepEqual(patch['x-kubernetes-group-version-kind'], {
    group: 'coordination.k8s.io',
    version: 'v1',
    kind: 'Lease',
  });
  assert.equal(patch.operationId, 'patchCoordinationV1NamespacedLease');
  assert.deepEqual(schemaOf(leases, 'io.k8s.api.coordination.v1.Lease')['x-kubernetes-group-version-kind'], [
    { group: 'coordination.k8s.io', version: 'v1', kind: 'Lease' },
  ]);
  assert.ok(leases.components.schemas['io.k8s.api.coordination.v1.LeaseSpec']);
  assert.ok(leases.components.schemas['io.k8s.api.coordination.v1.LeaseList']);
  assert.equal(leases.components.schemas[`${CORE}Node`], undefined);
});

test('a kind without a known schema still gets a minimal one', () => {
  const d = openapiV3Document('v1', [
    {
      plural: 'secrets',
      kind: 'Secret',
      namespaced: true,
      verbs: ['get', 'list'],
      subresources: [],
      patchTypes: acceptedPatchMediaTypes(false),
    },
  ]);
  const secret = schemaOf(d, `${CORE}Secret`);
  assert.deepEqual(secret['x-kubernetes-group-version-kind'], [{ group: '', version: 'v1', kind: 'Secret' }]);
  assert.ok(obj(secret.properties).metadata);
  assert.ok(d.components.schemas[`${CORE}SecretList`]);
  for (const r of allRefs(d)) assert.ok(d.components.schemas[r.slice('#/components/schemas/'.length)], r);
});

// --- real kubectl against a stub serving these documents ------------------------------------------------

interface Stub {
  server: Server;
  port: number;
  requests: string[];
  dir: string;
  kubeconfig: string;
}

let stub: Stub;

async function startStub(): Promise<Stub> {
  const requests: string[] = [];
  const v1Doc = openapiV3Document('v1', coreResources);
  const root = openapiV3Root(['v1'], { v1: v1Doc });
  let podCIDR = '10.0.0.0/24';
  let version = 5;
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://stub');
    requests.push(`${req.method} ${url.pathname}${url.search}`);
    const json = (code: number, body: unknown): void => {
      res.writeHead(code, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const node = (): Json => ({
      kind: 'Node',
      apiVersion: 'v1',
      metadata: { name: 'n1', uid: 'u1', resourceVersion: String(version), creationTimestamp: '2024-01-01T00:00:00Z' },
      spec: { podCIDR },
    });
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const port = (server.address() as AddressInfo).port;
      switch (url.pathname) {
        case '/api':
          return json(200, {
            kind: 'APIVersions',
            versions: ['v1'],
            serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: `127.0.0.1:${port}` }],
          });
        case '/apis':
          return json(200, { kind: 'APIGroupList', apiVersion: 'v1', groups: [] });
        case '/api/v1':
          return json(200, { kind: 'APIResourceList', groupVersion: 'v1', resources: discoveryV1 });
        case '/version':
          return json(200, { major: '1', minor: '22', gitVersion: 'v1.22.17-dkc.0' });
        case '/openapi/v2':
          res.writeHead(200, { 'Content-Type': OPENAPI_V2_CONTENT_TYPE });
          return res.end(openapiV2Protobuf([], 'v1.22.17-dkc.0').body);
        case '/openapi/v3':
          return json(200, root);
        case '/openapi/v3/api/v1':
          return json(200, v1Doc);
        case '/api/v1/nodes/n1':
          if (req.method === 'PATCH') {
            requests.push(`  ${req.headers['content-type']} ${body}`);
            const patch = JSON.parse(body) as { spec?: { podCIDR?: string } };
            podCIDR = patch.spec?.podCIDR ?? podCIDR;
            version++;
          }
          return json(200, node());
        default:
          return json(404, {
            kind: 'Status',
            apiVersion: 'v1',
            metadata: {},
            status: 'Failure',
            message: 'not found',
            reason: 'NotFound',
            code: 404,
          });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const dir = await mkdtemp(join(tmpdir(), 'dkc-openapi-'));
  const kubeconfig = join(dir, 'kubeconfig');
  await writeFile(
    kubeconfig,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      '- name: stub',
      `  cluster: {server: "http://127.0.0.1:${port}"}`,
      'users:',
      '- name: stub',
      '  user: {token: stub}',
      'contexts:',
      '- name: stub',
      '  context: {cluster: stub, user: stub}',
      'current-context: stub',
      '',
    ].join('\n'),
  );
  return { server, port, requests, dir, kubeconfig };
}

before(async () => {
  stub = await startStub();
});

after(async () => {
  await new Promise<void>((resolve) => stub.server.close(() => resolve()));
  await rm(stub.dir, { recursive: true, force: true });
});

test('kubectl 1.32 explain renders configSource from the v3 document', async () => {
  const k = await kubectl('1.32', stub.kubeconfig);
  try {
    const configSource = await k.ok(['explain', 'node.spec.configSource']);
    assert.match(configSource, /FIELD: configSource <NodeConfigSource>/);
    assert.match(configSource, /Dynamic Kubelet\s+Configuration/);
    assert.match(configSource, /configMap\s+<ConfigMapNodeConfigSource>/);
    assert.ok(stub.requests.some((r) => r.startsWith('GET /openapi/v3/api/v1?hash=')));

    const configMapRef = await k.ok(['explain', 'node.spec.configSource.configMap']);
    for (const field of ['kubeletConfigKey', 'name', 'namespace']) {
      assert.match(configMapRef, new RegExp(`\\n  ${field}\\t<string> -required-\\n`), field);
    }
    assert.match(configMapRef, /\n  uid\t<string>\n/);
    assert.match(configMapRef, /uid\s+must\s+not\s+be\s+set\s+in\s+spec/);
    assert.match(configMapRef, /required\s+in\s+status\.config/);

    const configMap = await k.ok(['explain', 'configmap']);
    assert.match(configMap, /KIND:\s+ConfigMap/);
    assert.match(configMap, /binaryData\t<map\[string\]string>/);
    assert.match(configMap, /immutable\t<boolean>/);

    const status = await k.ok(['explain', 'node.status.config']);
    assert.match(status, /lastKnownGood\t<NodeConfigSource>/);
  } finally {
    await k.cleanup();
  }
});

test('kubectl 1.32 edit validates through openapi v3 and never fetches v2', async () => {
  const k = await kubectl('1.32', stub.kubeconfig);
  const from = stub.requests.length;
  try {
    const out = await k.ok(['edit', 'node', 'n1'], {
      env: { KUBE_EDITOR: "sed -i 's#podCIDR: .*#podCIDR: 10.9.0.0/24#'" },
    });
    assert.match(out, /node\/n1 edited/);
    const seen = stub.requests.slice(from);
    assert.ok(
      seen.some((r) => r.startsWith('GET /openapi/v3/api/v1?hash=')),
      seen.join('\n'),
    );
    assert.ok(!seen.some((r) => r.startsWith('GET /openapi/v2')), seen.join('\n'));
    assert.ok(
      seen.some((r) => r.startsWith('PATCH /api/v1/nodes/n1?') && r.includes('fieldValidation=Strict')),
      seen.join('\n'),
    );
  } finally {
    await k.cleanup();
  }
});

test('kubectl 1.20 edit accepts the protobuf /openapi/v2 answer', async () => {
  const k = await kubectl('1.20', stub.kubeconfig);
  const from = stub.requests.length;
  try {
    const out = await k.ok(['edit', 'node', 'n1'], {
      env: { KUBE_EDITOR: "sed -i 's#podCIDR: .*#podCIDR: 10.8.0.0/24#'" },
    });
    assert.match(out, /node\/n1 edited/);
    const seen = stub.requests.slice(from);
    assert.ok(
      seen.some((r) => r.startsWith('GET /openapi/v2')),
      seen.join('\n'),
    );
    assert.ok(
      seen.some((r) => r.includes('{"spec":{"podCIDR":"10.8.0.0/24"}}')),
      seen.join('\n'),
    );
  } finally {
    await k.cleanup();
  }
});
