#!/usr/bin/env node
// Generates src/server/schema/kinds.ts, the one schema source of the served kinds, from upstream's
// sources: each package's generated.proto (field numbers and wire types) and its Go types (JSON names,
// omitempty and pointers, patch strategies and merge keys, list/map/struct types, optional markers).
// The server derives its protobuf reflection tables, strategic-merge metadata and OpenAPI component
// schemas from that file at run time; the build machine needs no network.
//
// Usage (checkouts of k8s.io/api and k8s.io/apimachinery at the same release tag, e.g. v0.32.13):
//   node scripts/gen-schema.mjs <k8s.io/api dir> <k8s.io/apimachinery dir> [release]
// Descriptions are not taken from upstream: the server keeps its own (src/server/schema/descriptions.ts).

import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** Proto package → Go package directory. */
const packageDirs = (apiDir, machineryDir) => ({
  'k8s.io.api.core.v1': join(apiDir, 'core/v1'),
  'k8s.io.api.coordination.v1': join(apiDir, 'coordination/v1'),
  'k8s.io.api.rbac.v1': join(apiDir, 'rbac/v1'),
  'k8s.io.api.authorization.v1': join(apiDir, 'authorization/v1'),
  'k8s.io.api.authentication.v1': join(apiDir, 'authentication/v1'),
  'k8s.io.api.policy.v1': join(apiDir, 'policy/v1'),
  'k8s.io.api.policy.v1beta1': join(apiDir, 'policy/v1beta1'),
  'k8s.io.api.apps.v1': join(apiDir, 'apps/v1'),
  'k8s.io.api.autoscaling.v1': join(apiDir, 'autoscaling/v1'),
  'k8s.io.apimachinery.pkg.apis.meta.v1': join(machineryDir, 'pkg/apis/meta/v1'),
  'k8s.io.apimachinery.pkg.runtime': join(machineryDir, 'pkg/runtime'),
  'k8s.io.apimachinery.pkg.api.resource': join(machineryDir, 'pkg/api/resource'),
  'k8s.io.apimachinery.pkg.util.intstr': join(machineryDir, 'pkg/util/intstr'),
});

/** The kinds the server serves (group, version, kind); each brings its List unless `list: false`. */
const served = [
  ['', 'v1', 'Namespace'],
  ['', 'v1', 'Node'],
  ['', 'v1', 'ConfigMap'],
  ['', 'v1', 'Event'],
  ['', 'v1', 'Pod'],
  ['', 'v1', 'Binding', { list: false }],
  ['coordination.k8s.io', 'v1', 'Lease'],
  ['rbac.authorization.k8s.io', 'v1', 'Role'],
  ['rbac.authorization.k8s.io', 'v1', 'ClusterRole'],
  ['rbac.authorization.k8s.io', 'v1', 'RoleBinding'],
  ['rbac.authorization.k8s.io', 'v1', 'ClusterRoleBinding'],
  ['authorization.k8s.io', 'v1', 'SelfSubjectAccessReview', { list: false }],
  ['authorization.k8s.io', 'v1', 'SubjectAccessReview', { list: false }],
  ['authorization.k8s.io', 'v1', 'LocalSubjectAccessReview', { list: false }],
  ['authorization.k8s.io', 'v1', 'SelfSubjectRulesReview', { list: false }],
  ['authentication.k8s.io', 'v1', 'SelfSubjectReview', { list: false }],
  ['policy', 'v1', 'PodDisruptionBudget'],
  ['policy', 'v1beta1', 'PodDisruptionBudget'],
  ['policy', 'v1', 'Eviction', { list: false }],
  ['policy', 'v1beta1', 'Eviction', { list: false }],
  ['apps', 'v1', 'Deployment'],
  ['apps', 'v1', 'ReplicaSet'],
  ['apps', 'v1', 'DaemonSet'],
  ['apps', 'v1', 'StatefulSet'],
  ['apps', 'v1', 'ControllerRevision'],
  ['autoscaling', 'v1', 'Scale', { list: false }],
];

/** Types the documents reference beside the kinds (responses, bodies of deletes and patches). */
const extraRoots = [
  'k8s.io.apimachinery.pkg.apis.meta.v1.Status',
  'k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions',
  'k8s.io.apimachinery.pkg.apis.meta.v1.Patch',
  'k8s.io.apimachinery.pkg.runtime.Unknown',
];

// Every type is read whole: the kinds' closures (a Pod's, a Deployment's template) are complete, so each kind is
// decodable from protobuf and its schema names every field upstream's does.
const subsets = {};
const opaque = new Set();
/** Whose wire form differs from their JSON form; rendered by hand in the decoder and the documents. */
const special = new Set(
  [
    'apis.meta.v1.Time',
    'apis.meta.v1.MicroTime',
    'apis.meta.v1.FieldsV1',
    'apis.meta.v1.Patch',
    'api.resource.Quantity',
    'util.intstr.IntOrString',
  ].map((t) => `k8s.io.apimachinery.pkg.${t}`),
);

// ---------------------------------------------------------------------------------------------------
// generated.proto

/** Message name → { name, fields: [{ name, id, type, repeated?, map? }] } of one generated.proto. */
export function parseProto(text, pkg) {
  const messages = new Map();
  let current;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line.startsWith('//') || line === '') continue;
    let m = /^message (\w+) \{$/.exec(line);
    if (m) {
      current = { name: `${pkg}.${m[1]}`, fields: [] };
      messages.set(current.name, current);
      continue;
    }
    if (line === '}') {
      current = undefined;
      continue;
    }
    if (!current) continue;
    m = /^(optional|repeated) ([\w.]+) (\w+) = (\d+);$/.exec(line);
    if (m) {
      current.fields.push({ name: m[3], id: Number(m[4]), type: qualify(m[2], pkg), repeated: m[1] === 'repeated' });
      continue;
    }
    m = /^map<string, ([\w.]+)> (\w+) = (\d+);$/.exec(line);
    if (m) {
      current.fields.push({ name: m[2], id: Number(m[3]), type: qualify(m[1], pkg), map: true });
      continue;
    }
    throw new Error(`${pkg}: cannot read "${line}"`);
  }
  return messages;
}

const SCALARS = new Set([
  'string',
  'bool',
  'int32',
  'int64',
  'bytes',
  'double',
  'float',
  'uint32',
  'uint64',
  'sint32',
  'sint64',
]);

function qualify(type, pkg) {
  if (SCALARS.has(type)) return type;
  if (type.startsWith('.')) return type.slice(1);
  return `${pkg}.${type}`;
}

// ---------------------------------------------------------------------------------------------------
// Go types

/** Struct name → { markers, fields: [{ goName, goType, tags, markers }] } for every struct of a package. */
function parseGo(dir) {
  const structs = new Map();
  for (const file of readdirSync(dir)) {
    if (!file.endsWith('.go') || file.endsWith('_test.go') || file.startsWith('zz_') || file.startsWith('generated'))
      continue;
    parseGoSource(readFileSync(join(dir, file), 'utf8'), structs);
  }
  return structs;
}

/** Adds the structs of one Go source file to `structs`. */
export function parseGoSource(text, structs = new Map()) {
  const lines = text.split('\n');
  let comments = [];
  let current;
  for (const raw of lines) {
    const line = raw.trim();
    if (line.startsWith('//')) {
      comments.push(line.slice(2).trim());
      continue;
    }
    if (!current) {
      const m = /^type (\w+) struct \{$/.exec(line);
      if (m) {
        current = { markers: markers(comments), fields: [] };
        structs.set(m[1], current);
      }
      comments = [];
      continue;
    }
    if (line === '}') {
      current = undefined;
      comments = [];
      continue;
    }
    const m = /^(?:(\w+)\s+)?([\w.*[\]]+)\s+`([^`]*)`(?:\s*\/\/.*)?$/.exec(line);
    if (m) current.fields.push({ goName: m[1] ?? m[2], goType: m[2], tags: tags(m[3]), markers: markers(comments) });
    if (line !== '') comments = [];
  }
  return structs;
}

function tags(text) {
  const out = {};
  for (const m of text.matchAll(/(\w+):"([^"]*)"/g)) out[m[1]] = m[2];
  return out;
}

function markers(comments) {
  const out = {};
  for (const c of comments) {
    const m = /^\+([\w-]+)(?:=(.*))?$/.exec(c);
    if (!m) continue;
    if (m[1] === 'listMapKey') (out.listMapKey ??= []).push(m[2]);
    else out[m[1]] = m[2] ?? true;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------
// Joining both into facts

const messages = new Map();
const goStructs = new Map();

function readPackages(packages) {
  for (const [pkg, dir] of Object.entries(packages)) {
    for (const [name, message] of parseProto(readFileSync(join(dir, 'generated.proto'), 'utf8'), pkg))
      messages.set(name, message);
    goStructs.set(pkg, parseGo(dir));
  }
}

/** "k8s.io.api.core.v1.Node" → "io.k8s.api.core.v1.Node", upstream's OpenAPI definition name. */
const definitionName = (protoName) => protoName.replace(/^k8s\.io\./, 'io.k8s.');

const types = {};

function typeFacts(protoName) {
  const def = definitionName(protoName);
  if (Object.hasOwn(types, def)) return;
  const message = messages.get(protoName);
  if (!message) throw new Error(`no message ${protoName}`);
  const pkg = protoName.slice(0, protoName.lastIndexOf('.'));
  const short = protoName.slice(pkg.length + 1);
  const entry = { proto: protoName };
  types[def] = entry;
  if (special.has(protoName) || pkg === 'k8s.io.apimachinery.pkg.runtime') {
    entry.wire = message.fields.map((f) => ({
      name: f.name,
      id: f.id,
      type: scalarOrDef(f.type),
      ...(f.repeated ? { list: true } : {}),
    }));
    for (const f of message.fields) if (!SCALARS.has(f.type)) typeFacts(f.type);
    if (special.has(protoName)) entry.special = true;
    return;
  }
  if (opaque.has(protoName)) {
    entry.opaque = true;
    return;
  }
  const struct = goStructs.get(pkg).get(short);
  if (!struct && message.fields.length === 1 && message.fields[0].name === 'items' && message.fields[0].repeated) {
    // A Go named slice (`type ExtraValue []string`): a list in JSON, a message with `items` on the wire.
    entry.wire = message.fields.map((f) => ({ name: f.name, id: f.id, type: scalarOrDef(f.type), list: true }));
    entry.special = true;
    return;
  }
  if (!struct) throw new Error(`no Go struct ${short} in ${pkg}`);
  if (struct.markers.structType) entry.structType = struct.markers.structType;
  if (struct.markers.mapType) entry.mapType = struct.markers.mapType;
  const keep = subsets[protoName];
  const fields = [];
  for (const goField of struct.fields) {
    const pb = goField.tags.protobuf;
    if (pb && goField.tags.json === ',inline') {
      fields.push(...embeddedFields(protoName, message, goField, entry));
      continue;
    }
    if (!pb || !/name=\w+/.test(pb)) continue; // TypeMeta and other inlined, wire-less members
    const protoField = /name=(\w+)/.exec(pb)[1];
    const wireField = message.fields.find((f) => f.name === protoField);
    if (!wireField) throw new Error(`${protoName}: Go field ${goField.goName} has no proto field ${protoField}`);
    const [jsonName, ...options] = (goField.tags.json ?? '').split(',');
    if (keep && !keep.includes(jsonName)) continue;
    const number = Number(pb.split(',')[1]);
    if (number !== wireField.id)
      throw new Error(`${protoName}.${protoField}: Go says ${number}, proto says ${wireField.id}`);
    const fact = { name: jsonName, id: wireField.id, type: scalarOrDef(wireField.type) };
    if (wireField.repeated) fact.list = true;
    if (wireField.map) fact.map = true;
    fact.go = goField.goType.startsWith('*') ? 'ptr' : options.includes('omitempty') ? 'omitempty' : 'keep';
    fact.goType = goField.goType;
    if (goField.markers.optional) fact.optional = true;
    if (goField.tags.patchStrategy) fact.patchStrategy = goField.tags.patchStrategy;
    if (goField.tags.patchMergeKey) fact.patchMergeKey = goField.tags.patchMergeKey;
    if (goField.markers.listType) fact.listType = goField.markers.listType;
    if (goField.markers.listMapKey) fact.listMapKeys = goField.markers.listMapKey;
    if (goField.markers.mapType) fact.mapType = goField.markers.mapType;
    fields.push(fact);
    if (!SCALARS.has(wireField.type)) typeFacts(wireField.type);
  }
  if (!keep) {
    // Every wire field must have been matched with its Go field: a field the Go parser missed would
    // otherwise vanish from the decoder and the documents without a word.
    const embedded = new Set((entry.embeds ?? []).map((e) => e.id));
    const missed = message.fields.filter(
      (w) => !embedded.has(w.id) && !fields.some((f) => f.id === w.id && !f.embedded),
    );
    if (missed.length > 0) throw new Error(`${protoName}: no Go field for ${missed.map((w) => w.name).join(', ')}`);
  }
  entry.fields = fields;
}

/**
 * A struct embedded with `json:",inline"` that protobuf carries as a message of its own (EphemeralContainer's
 * EphemeralContainerCommon): its fields stand in the outer type's JSON, each marked with the wire field holding it,
 * and the outer type records that wire field (`embeds`).
 */
function embeddedFields(protoName, message, goField, entry) {
  const number = Number(goField.tags.protobuf.split(',')[1]);
  const wireField = message.fields.find((f) => f.id === number);
  if (!wireField || SCALARS.has(wireField.type))
    throw new Error(`${protoName}: embedded ${goField.goName} has no message field ${number}`);
  typeFacts(wireField.type);
  const inner = types[definitionName(wireField.type)];
  (entry.embeds ??= []).push({ name: wireField.name, id: wireField.id, type: definitionName(wireField.type) });
  return inner.fields.map((f) => ({ ...f, embedded: wireField.name }));
}

function scalarOrDef(type) {
  return SCALARS.has(type) ? type : definitionName(type);
}

const groupPackages = {
  '': 'k8s.io.api.core.v1',
  'coordination.k8s.io': 'k8s.io.api.coordination.v1',
  'rbac.authorization.k8s.io': 'k8s.io.api.rbac.v1',
  'authorization.k8s.io': 'k8s.io.api.authorization.v1',
  'authentication.k8s.io': 'k8s.io.api.authentication.v1',
  policy: 'k8s.io.api.policy',
  apps: 'k8s.io.api.apps.v1',
  autoscaling: 'k8s.io.api.autoscaling.v1',
};

function main(argv) {
  const [apiDir, machineryDir, release = 'v0.32.13'] = argv;
  if (!apiDir || !machineryDir) {
    console.error('usage: node scripts/gen-schema.mjs <k8s.io/api dir> <k8s.io/apimachinery dir> [release]');
    process.exit(2);
  }
  readPackages(packageDirs(apiDir, machineryDir));
  const kinds = [];
  for (const [group, version, kind, opts = {}] of served) {
    const pkg = groupPackages[group];
    const proto = pkg.endsWith(version) ? `${pkg}.${kind}` : `${pkg}.${version}.${kind}`;
    typeFacts(proto);
    const entry = { group, version, kind, type: definitionName(proto) };
    if (opts.list !== false) {
      typeFacts(`${proto}List`);
      entry.list = definitionName(`${proto}List`);
    }
    kinds.push(entry);
  }
  for (const root of extraRoots) typeFacts(root);

  // A kind whose closure was cut short (subsets, opaque types) is documented but not decodable from protobuf.
  function complete(def, seen = new Set()) {
    if (seen.has(def)) return true;
    seen.add(def);
    const t = types[def];
    if (t.opaque || subsets[t.proto]) return false;
    return (t.fields ?? t.wire ?? []).every((f) => SCALARS.has(f.type) || complete(f.type, seen));
  }
  for (const k of kinds) if (!complete(k.type)) k.partial = true;

  // A TypeScript data module (one line per kind and per type), so the build needs no JSON loader and a
  // change of upstream shows as a readable diff.
  const lines = [
    "// Generated by scripts/gen-schema.mjs from upstream's generated.proto and Go types; do not edit.",
    "import type { SchemaFacts } from './facts.js';",
    '',
    'export const facts: SchemaFacts = {',
    `  source: ${JSON.stringify(`k8s.io/api and k8s.io/apimachinery ${release}`)},`,
    '  kinds: [',
    ...kinds.map((k) => `    ${JSON.stringify(k)},`),
    '  ],',
    '  types: {',
    ...Object.keys(types)
      .sort()
      .map((name) => `    ${JSON.stringify(name)}: ${JSON.stringify(types[name])},`),
    '  },',
    '};',
    '',
  ];
  const target = new URL('../src/server/schema/kinds.ts', import.meta.url);
  writeFileSync(target, lines.join('\n'));
  console.log(`${kinds.length} kinds, ${Object.keys(types).length} types → ${target.pathname}`);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href)
  main(process.argv.slice(2));
