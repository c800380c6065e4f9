// A custom kind's schema as /openapi/v2 publishes it for kubectl's client-side validation: what kube-apiserver's
// ToStructuralOpenAPIV2 removes (so kubectl checks no more than the server does) and what the builder adds.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { crdSchemaForOpenApiV2, type TypeMetaProperties } from '../../../src/server/crd/openapiv2.js';

const meta: TypeMetaProperties = {
  apiVersion: { type: 'string', description: 'a' },
  kind: { type: 'string', description: 'k' },
  metadata: { $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta', description: 'm' },
};

const rootOf = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  type: 'object',
  properties,
  ...extra,
});
const published = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  crdSchemaForOpenApiV2(rootOf(properties, extra), meta);
const prop = (s: Record<string, unknown>, name: string): unknown => (s['properties'] as Record<string, unknown>)[name];

test('the kind names its apiVersion, kind and metadata over whatever the CRD says of them', () => {
  const out = published({ metadata: { type: 'object' }, spec: { type: 'object' } }, { description: 'root' });
  assert.deepEqual(out, { type: 'object', description: 'root', properties: { spec: { type: 'object' }, ...meta } });
});

test('a root that preserves unknown fields is a bare object, so that kubectl accepts any field', () => {
  const schema = rootOf(
    { spec: { type: 'object', properties: { a: { type: 'string' } } } },
    { 'x-kubernetes-preserve-unknown-fields': true },
  );
  assert.deepEqual(crdSchemaForOpenApiV2(schema, meta), { type: 'object' });
});

test('junctors and keywords outside the structural schema go; value validations and extensions stay', () => {
  const field = {
    type: 'string',
    description: 'd',
    pattern: '^a',
    maxLength: 3,
    enum: ['a'],
    default: 'a',
    example: 'a',
    externalDocs: { url: 'https://example.com' },
    allOf: [{ minLength: 1 }],
    anyOf: [{ pattern: 'b' }],
    oneOf: [{ pattern: 'c' }],
    not: { pattern: 'd' },
    'x-kubernetes-validations': [{ rule: 'self != ""' }],
  };
  assert.deepEqual(prop(published({ f: field }), 'f'), {
    type: 'string',
    description: 'd',
    pattern: '^a',
    maxLength: 3,
    enum: ['a'],
    default: 'a',
    'x-kubernetes-validations': [{ rule: 'self != ""' }],
  });
  // int-or-string keeps no type: kubectl accepts both.
  assert.deepEqual(
    prop(
      published({ p: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] } }),
      'p',
    ),
    {
      'x-kubernetes-int-or-string': true,
    },
  );
});

test('a nullable value is untyped and not required, since kubectl would refuse its null', () => {
  const spec = {
    type: 'object',
    required: ['when', 'size'],
    properties: {
      when: { type: 'object', nullable: true, properties: { at: { type: 'string' } } },
      list: { type: 'array', nullable: true, items: { type: 'string' } },
      size: { type: 'integer' },
    },
  };
  assert.deepEqual(prop(published({ spec }), 'spec'), {
    type: 'object',
    required: ['size'],
    properties: { when: {}, list: {}, size: { type: 'integer' } },
  });
  const onlyNullable = { type: 'object', required: ['when'], properties: { when: { type: 'string', nullable: true } } };
  assert.deepEqual(prop(published({ spec: onlyNullable }), 'spec'), { type: 'object', properties: { when: {} } });
  const nullableValues = { type: 'object', required: ['x'], additionalProperties: { type: 'string', nullable: true } };
  assert.deepEqual(prop(published({ spec: nullableValues }), 'spec'), { type: 'object', additionalProperties: {} });
});

test('preserved objects lose their properties and type, arrays without items their type, at any depth', () => {
  const spec = {
    type: 'object',
    properties: {
      extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { a: { type: 'string' } } },
      items: { type: 'array', items: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      any: { type: 'array', 'x-kubernetes-preserve-unknown-fields': true, items: { type: 'string' } },
    },
  };
  assert.deepEqual(prop(published({ spec }), 'spec'), {
    type: 'object',
    properties: {
      extra: { 'x-kubernetes-preserve-unknown-fields': true },
      items: { type: 'array', items: { 'x-kubernetes-preserve-unknown-fields': true } },
      any: { 'x-kubernetes-preserve-unknown-fields': true },
    },
  });
});

test('an embedded resource names and requires its apiVersion and kind, unless it preserves unknown fields', () => {
  const template = {
    type: 'object',
    'x-kubernetes-embedded-resource': true,
    required: ['spec'],
    properties: { spec: { type: 'object' } },
  };
  const loose = {
    type: 'object',
    'x-kubernetes-embedded-resource': true,
    'x-kubernetes-preserve-unknown-fields': true,
  };
  const out = published({ template, loose, list: { type: 'array', items: template } });
  const expected = {
    ...template,
    required: ['spec', 'kind', 'apiVersion'],
    properties: { spec: { type: 'object' }, ...meta },
  };
  assert.deepEqual(prop(out, 'template'), expected);
  assert.deepEqual(prop(out, 'list'), { type: 'array', items: expected });
  assert.deepEqual(prop(out, 'loose'), {
    'x-kubernetes-embedded-resource': true,
    'x-kubernetes-preserve-unknown-fields': true,
  });
});

test('the CRD schema itself is left as it was', () => {
  const schema = rootOf({
    spec: {
      type: 'object',
      nullable: true,
      'x-kubernetes-embedded-resource': true,
      properties: { a: { type: 'string' } },
    },
  });
  const copy = structuredClone(schema);
  crdSchemaForOpenApiV2(schema, meta);
  assert.deepEqual(schema, copy);
});
