// The readers of the schema generator (scripts/gen-schema.mjs) on excerpts shaped like upstream's
// generated.proto and Go types: what they must take from each, and what they must refuse.

import { test } from 'node:test';
import assert from 'node:assert/strict';

interface ProtoField {
  name: string;
  id: number;
  type: string;
  repeated?: boolean;
  map?: boolean;
}
interface GoField {
  goName: string;
  goType: string;
  tags: Record<string, string>;
  markers: Record<string, string | boolean | string[]>;
}
interface Generator {
  parseProto(text: string, pkg: string): Map<string, { name: string; fields: ProtoField[] }>;
  parseGoSource(text: string): Map<string, { markers: Record<string, unknown>; fields: GoField[] }>;
}

// The script is plain JavaScript outside the TypeScript build; a computed specifier keeps tsc from resolving it.
const script = new URL('../../../scripts/gen-schema.mjs', import.meta.url).href;
const gen = (await import(script)) as Generator;

const PROTO = `
syntax = "proto2";
package k8s.io.api.rbac.v1;

// A comment line that mentions message Foo { is ignored.
message ClusterRole {
  // +optional
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;

  repeated PolicyRule rules = 2;

  optional AggregationRule aggregationRule = 3;
}

message ConfigMap {
  map<string, string> data = 2;

  map<string, bytes> binaryData = 3;

  optional bool immutable = 4;
}
`;

test('parseProto reads field numbers, wire types, repeated and map fields, qualifying local types', () => {
  const messages = gen.parseProto(PROTO, 'k8s.io.api.rbac.v1');
  assert.deepEqual([...messages.keys()], ['k8s.io.api.rbac.v1.ClusterRole', 'k8s.io.api.rbac.v1.ConfigMap']);
  assert.deepEqual(messages.get('k8s.io.api.rbac.v1.ClusterRole')?.fields, [
    { name: 'metadata', id: 1, type: 'k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta', repeated: false },
    { name: 'rules', id: 2, type: 'k8s.io.api.rbac.v1.PolicyRule', repeated: true },
    { name: 'aggregationRule', id: 3, type: 'k8s.io.api.rbac.v1.AggregationRule', repeated: false },
  ]);
  assert.deepEqual(messages.get('k8s.io.api.rbac.v1.ConfigMap')?.fields, [
    { name: 'data', id: 2, type: 'string', map: true },
    { name: 'binaryData', id: 3, type: 'bytes', map: true },
    { name: 'immutable', id: 4, type: 'bool', repeated: false },
  ]);
});

test('parseProto refuses a line it does not understand instead of dropping a field', () => {
  assert.throws(() => gen.parseProto('message A {\n  oneof x { string a = 1; }\n}\n', 'p'), /cannot read "oneof x/);
});

const GO = `
package v1

// Subject names who a binding is for.
// +structType=atomic
type Subject struct {
	Kind string \`json:"kind" protobuf:"bytes,1,opt,name=kind"\`
	// +optional
	APIGroup string \`json:"apiGroup,omitempty" protobuf:"bytes,2,opt,name=apiGroup"\` // a trailing comment
}

type NodeStatus struct {
	metav1.TypeMeta \`json:",inline"\`
	// +optional
	// +patchMergeKey=type
	// +patchStrategy=merge
	// +listType=map
	// +listMapKey=type
	Conditions []NodeCondition \`json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,4,rep,name=conditions"\`

	Config *NodeConfigStatus \`json:"config,omitempty" protobuf:"bytes,11,opt,name=config"\`
	Capacity ResourceList \`json:"capacity,omitempty" protobuf:"bytes,1,rep,name=capacity,casttype=ResourceList,castkey=ResourceName"\`
}
`;

test('parseGoSource reads JSON tags, pointers, patch tags and the markers above each field and struct', () => {
  const structs = gen.parseGoSource(GO);
  const subject = structs.get('Subject');
  assert.deepEqual(subject?.markers, { structType: 'atomic' });
  assert.deepEqual(
    subject?.fields.map((f) => [f.goName, f.tags['json'], f.markers['optional'] ?? false]),
    [
      ['Kind', 'kind', false],
      ['APIGroup', 'apiGroup,omitempty', true],
    ],
  );
  const status = structs.get('NodeStatus');
  assert.deepEqual(
    status?.fields.map((f) => f.goName),
    ['metav1.TypeMeta', 'Conditions', 'Config', 'Capacity'],
  );
  const conditions = status?.fields[1];
  assert.equal(conditions?.tags['patchStrategy'], 'merge');
  assert.equal(conditions?.tags['patchMergeKey'], 'type');
  assert.deepEqual(conditions?.markers['listMapKey'], ['type']);
  assert.equal(conditions?.markers['listType'], 'map');
  assert.equal(status?.fields[2]?.goType, '*NodeConfigStatus');
  // Markers belong to the field right below them only.
  assert.equal(status?.fields[2]?.markers['listType'], undefined);
  assert.equal(
    status?.fields[3]?.tags['protobuf'],
    'bytes,1,rep,name=capacity,casttype=ResourceList,castkey=ResourceName',
  );
});
