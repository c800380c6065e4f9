// The one schema source of the served kinds: every kind the server accepts in a body decodes from
// protobuf, an object with every field set survives protobuf → JSON exactly as its JSON form, and the
// descriptions cover every published type and field.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeKubernetesProtobuf, kubernetesProtobufRoot, ProtobufDecodeError } from '../../src/server/protobuf.js';
import { defaultRegistry } from '../../src/server/registry.js';
import { apiVersionOf } from '../../src/server/resourcedef.js';
import { isScalarType, schemaFacts, typeFact, type FieldFact } from '../../src/server/schema/facts.js';
import { descriptions } from '../../src/server/schema/descriptions.js';
import { schemas } from '../../src/server/openapi-schemas.js';
import { patchMetaForKind } from '../../src/server/patch/index.js';

const MAGIC = [0x6b, 0x38, 0x73, 0x00];
const META = 'io.k8s.apimachinery.pkg.apis.meta.v1.';

function encode(protoName: string, value: Record<string, unknown>): Uint8Array {
  const type = kubernetesProtobufRoot().lookupType(protoName);
  const problem = type.verify(value);
  assert.equal(problem, null, `test value does not fit ${protoName}: ${problem}`);
  return type.encode(type.fromObject(value)).finish();
}

function envelope(apiVersion: string, kind: string, protoName: string, value: Record<string, unknown>): Uint8Array {
  const unknown = encode('k8s.io.apimachinery.pkg.runtime.Unknown', {
    typeMeta: { apiVersion, kind },
    raw: encode(protoName, value),
  });
  return Uint8Array.from([...MAGIC, ...unknown]);
}

// --- a sample of every field, as the protobuf message and as the JSON a client would send -----------------

interface Sample {
  wire: unknown;
  json: unknown;
}

let counter = 0;

function scalarSample(type: string): Sample {
  counter++;
  switch (type) {
    case 'string':
      return { wire: `s${counter}`, json: `s${counter}` };
    case 'bool':
      return { wire: true, json: true };
    case 'int32':
    case 'int64':
      return { wire: counter, json: counter };
    case 'bytes': {
      const bytes = Buffer.from([counter & 0xff, 0, 0xff]);
      return { wire: bytes, json: bytes.toString('base64') };
    }
    default:
      throw new Error(`no sample for ${type}`);
  }
}

function specialSample(definition: string): Sample | undefined {
  switch (definition) {
    case `${META}Time`:
      return { wire: { seconds: 1700000000 }, json: '2023-11-14T22:13:20Z' };
    case `${META}MicroTime`:
      return { wire: { seconds: 1700000000, nanos: 123456000 }, json: '2023-11-14T22:13:20.123456Z' };
    case `${META}FieldsV1`:
      return { wire: { Raw: Buffer.from('{"f:metadata":{}}') }, json: { 'f:metadata': {} } };
    case 'io.k8s.apimachinery.pkg.api.resource.Quantity':
      return { wire: { string: '8Gi' }, json: '8Gi' };
    case 'io.k8s.apimachinery.pkg.runtime.RawExtension':
      // Its JSON is the embedded object itself (a ControllerRevision's data).
      return { wire: { raw: Buffer.from('{"spec":{"replicas":2}}') }, json: { spec: { replicas: 2 } } };
    case 'io.k8s.apimachinery.pkg.util.intstr.IntOrString':
      return { wire: { type: 1, strVal: '25%' }, json: '25%' };
    case 'io.k8s.api.authorization.v1.ExtraValue':
    case 'io.k8s.api.authentication.v1.ExtraValue':
      return { wire: { items: ['a', 'b'] }, json: ['a', 'b'] };
    default:
      return undefined;
  }
}

function valueSample(type: string, depth: number): Sample {
  if (isScalarType(type)) return scalarSample(type);
  return specialSample(type) ?? structSample(type, depth + 1);
}

function fieldSample(f: FieldFact, depth: number): Sample {
  if (f.list === true) {
    const items = [valueSample(f.type, depth), valueSample(f.type, depth)];
    return { wire: items.map((i) => i.wire), json: items.map((i) => i.json) };
  }
  if (f.map === true) {
    const a = valueSample(f.type, depth);
    const b = valueSample(f.type, depth);
    return { wire: { b: b.wire, a: a.wire }, json: { a: a.json, b: b.json } };
  }
  return valueSample(f.type, depth);
}

function structSample(definition: string, depth: number): Sample {
  assert.ok(depth < 20, `${definition} nests too deep for a sample`);
  const wire: Record<string, unknown> = {};
  const json: Record<string, unknown> = {};
  for (const f of typeFact(definition).fields ?? []) {
    const s = fieldSample(f, depth);
    // An embedded struct's field stands in the outer JSON and, on the wire, in the message that carries the struct.
    const into = f.embedded === undefined ? wire : ((wire[f.embedded] ??= {}) as Record<string, unknown>);
    into[f.name] = s.wire;
    json[f.name] = s.json;
  }
  return { wire, json };
}

// --- tests --------------------------------------------------------------------------------------------------

// CustomResourceDefinitions are the exception: kubectl and client-go's apiextensions clients send them as JSON, and
// their Go types are not among the schema facts (k8s.io/api), so a protobuf CRD body is refused with 415.
const partialKinds = new Set(schemaFacts.kinds.filter((k) => k.partial).map((k) => `${k.group}/${k.kind}`));
const bodyKinds = defaultRegistry().all.filter(
  (d) =>
    (d.verbs.includes('create') || d.verbs.includes('update')) &&
    d.group !== 'apiextensions.k8s.io' &&
    !partialKinds.has(`${d.group}/${d.kind}`),
);

test('every kind the server accepts in a create or update body is registered for protobuf', () => {
  assert.ok(bodyKinds.some((d) => d.kind === 'Role') && bodyKinds.some((d) => d.kind === 'ClusterRoleBinding'));
  for (const def of bodyKinds) {
    const apiVersion = apiVersionOf(def);
    const body = Uint8Array.from([
      ...MAGIC,
      ...encode('k8s.io.apimachinery.pkg.runtime.Unknown', { typeMeta: { apiVersion, kind: def.kind } }),
    ]);
    try {
      const decoded = decodeKubernetesProtobuf(body);
      assert.equal(decoded.kind, def.kind);
      assert.equal(decoded.apiVersion, apiVersion);
    } catch (err) {
      assert.fail(`${apiVersion} ${def.kind}: ${err instanceof ProtobufDecodeError ? err.message : String(err)}`);
    }
  }
});

test('an object of every body kind with every field set decodes from protobuf to its JSON form', () => {
  for (const def of bodyKinds) {
    const kind = schemaFacts.kinds.find(
      (k) => k.group === def.group && k.version === def.version && k.kind === def.kind,
    );
    assert.ok(kind, `no schema facts for ${def.kind}`);
    const sample = structSample(kind.type, 0);
    const apiVersion = apiVersionOf(def);
    const decoded = decodeKubernetesProtobuf(
      envelope(apiVersion, def.kind, typeFact(kind.type).proto, sample.wire as Record<string, unknown>),
    );
    assert.deepEqual(
      decoded.object,
      { kind: def.kind, apiVersion, ...(sample.json as object) },
      `${apiVersion} ${def.kind}`,
    );
  }
});

test('a kubectl create role body decodes to the Role kubectl 1.20 posts as JSON', () => {
  const rules = [
    { verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] },
    { verbs: ['get'], apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles'] },
  ];
  const body = envelope('rbac.authorization.k8s.io/v1', 'Role', 'k8s.io.api.rbac.v1.Role', {
    metadata: { name: 'reader', namespace: 'ns' },
    rules,
  });
  assert.deepEqual(decodeKubernetesProtobuf(body).object, {
    kind: 'Role',
    apiVersion: 'rbac.authorization.k8s.io/v1',
    metadata: { name: 'reader', namespace: 'ns' },
    rules,
  });
});

test('a kubectl create clusterrolebinding body keeps roleRef and the subjects in order', () => {
  const subjects = [
    { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' },
    { kind: 'ServiceAccount', name: 'sa', namespace: 'kube-system' },
  ];
  const roleRef = { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' };
  const body = envelope('rbac.authorization.k8s.io/v1', 'ClusterRoleBinding', 'k8s.io.api.rbac.v1.ClusterRoleBinding', {
    metadata: { name: 'b' },
    subjects,
    roleRef,
  });
  const { object } = decodeKubernetesProtobuf(body);
  assert.deepEqual(object, {
    kind: 'ClusterRoleBinding',
    apiVersion: 'rbac.authorization.k8s.io/v1',
    metadata: { name: 'b' },
    subjects,
    roleRef,
  });
  // RoleRef has no omitempty: an empty one is written whole, as Go writes it.
  const empty = decodeKubernetesProtobuf(
    envelope('rbac.authorization.k8s.io/v1', 'RoleBinding', 'k8s.io.api.rbac.v1.RoleBinding', {
      metadata: { name: 'e' },
    }),
  );
  assert.deepEqual(empty.object.roleRef, { apiGroup: '', kind: '', name: '' });
});

test('a list without omitempty and without elements is null, as Go writes it and kubectl 1.20 posts it', () => {
  const body = envelope('rbac.authorization.k8s.io/v1', 'ClusterRole', 'k8s.io.api.rbac.v1.ClusterRole', {
    metadata: { name: 'agg' },
    aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'example.com/agg': 'true' } }] },
  });
  const { object } = decodeKubernetesProtobuf(body);
  assert.deepEqual(object, {
    kind: 'ClusterRole',
    apiVersion: 'rbac.authorization.k8s.io/v1',
    metadata: { name: 'agg' },
    rules: null,
    aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'example.com/agg': 'true' } }] },
  });
  // An omitempty list stays absent.
  const binding = decodeKubernetesProtobuf(
    envelope('rbac.authorization.k8s.io/v1', 'RoleBinding', 'k8s.io.api.rbac.v1.RoleBinding', {
      metadata: { name: 'b' },
    }),
  );
  assert.equal('subjects' in binding.object, false);
});

test('every kind is read whole: none is cut short, so a Pod and a Deployment decode from protobuf', () => {
  assert.deepEqual([...partialKinds], []);
  const pod = decodeKubernetesProtobuf(
    envelope('v1', 'Pod', 'k8s.io.api.core.v1.Pod', {
      metadata: { name: 'p' },
      spec: {
        volumes: [{ name: 'v', volumeSource: { emptyDir: {} } }],
        ephemeralContainers: [
          { ephemeralContainerCommon: { name: 'debug', image: 'busybox' }, targetContainerName: 'a' },
        ],
      },
    }),
  );
  const spec = (pod.object as { spec: Record<string, unknown> }).spec;
  assert.deepEqual(spec['volumes'], [{ name: 'v', emptyDir: {} }], "a Volume's source stands in the Volume's JSON");
  assert.deepEqual(
    (spec['ephemeralContainers'] as Record<string, unknown>[]).map((c) => [
      c['name'],
      c['image'],
      c['targetContainerName'],
    ]),
    [['debug', 'busybox', 'a']],
  );
  assert.equal(
    decodeKubernetesProtobuf(envelope('apps/v1', 'Deployment', 'k8s.io.api.apps.v1.Deployment', {})).kind,
    'Deployment',
  );
});

test('every published type and field has a description of our own', () => {
  for (const [definition, t] of Object.entries(schemaFacts.types)) {
    if (t.proto.startsWith('k8s.io.apimachinery.pkg.runtime.')) continue;
    const entry = descriptions[definition];
    assert.ok(entry && typeof entry[''] === 'string' && entry[''].length > 10, `${definition} has no description`);
    for (const f of t.fields ?? [])
      assert.ok(typeof entry[f.name] === 'string', `${definition}.${f.name} has no description`);
    assert.ok(schemas[definition], `${definition} is not published`);
  }
});

test('the RBAC schemas carry upstream structure: required fields, atomic lists and structs', () => {
  const rule = schemas['io.k8s.api.rbac.v1.PolicyRule'] as {
    required: string[];
    properties: Record<string, Record<string, unknown>>;
  };
  assert.deepEqual(rule.required, ['verbs']);
  assert.equal(rule.properties['verbs']?.['x-kubernetes-list-type'], 'atomic');
  const binding = schemas['io.k8s.api.rbac.v1.RoleBinding'] as { required: string[] };
  assert.deepEqual(binding.required, ['roleRef']);
  assert.equal(schemas['io.k8s.api.rbac.v1.Subject']?.['x-kubernetes-map-type'], 'atomic');
  assert.deepEqual(schemas['io.k8s.api.rbac.v1.Role']?.['x-kubernetes-group-version-kind'], [
    { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'Role' },
  ]);
});

test('strategic-merge metadata follows the struct tags held in the facts', () => {
  const status = patchMetaForKind('Node')?.fields?.['status']?.fields;
  assert.deepEqual(status?.['conditions'], { listStrategy: 'merge', mergeKey: 'type' });
  assert.deepEqual(status?.['addresses'], { listStrategy: 'merge', mergeKey: 'type' });
  // RBAC lists carry no patch strategy: they are replaced whole.
  assert.equal(patchMetaForKind('ClusterRole')?.fields?.['rules'], undefined);
  assert.equal(patchMetaForKind('RoleBinding')?.fields?.['metadata']?.fields?.['ownerReferences']?.mergeKey, 'uid');
});
