import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { validateStructural } from '../../../src/server/crd/structural.js';

const repoRoot = resolve(fileURLToPath(import.meta.url), '../../../../..');
const BASE = 'spec.versions[0].schema.openAPIV3Schema';
const check = (schema: unknown): string[] => validateStructural(schema, BASE).map(String);

describe('validateStructural: the CRD schema rules kube-apiserver enforces', () => {
  it('accepts the NodeConfigRollout schema', () => {
    const crd = parse(readFileSync(resolve(repoRoot, 'deploy/crds/nodeconfigrollouts.dkc.io.yaml'), 'utf8')) as {
      spec: { versions: { schema: { openAPIV3Schema: unknown } }[] };
    };
    assert.deepEqual(check(crd.spec.versions[0]!.schema.openAPIV3Schema), []);
  });

  it('accepts int-or-string and preserve-unknown-fields without a type, and the int-or-string anyOf', () => {
    const schema = {
      type: 'object',
      properties: {
        port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
        free: { 'x-kubernetes-preserve-unknown-fields': true },
        pod: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
        metadata: { type: 'object', properties: { name: { type: 'string', maxLength: 10 } } },
      },
    };
    assert.deepEqual(check(schema), []);
  });

  it('reports each broken rule at its path, sorted', () => {
    const schema = {
      type: 'object',
      additionalProperties: { type: 'string' },
      properties: {
        kind: { type: 'integer' },
        metadata: { type: 'object', properties: { labels: { type: 'object' } } },
        spec: {
          properties: {
            list: { type: 'array' },
            ref: { $ref: '#/definitions/x', uniqueItems: true, type: 'string' },
            closed: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false },
            open: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: true },
            both: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: { type: 'string' } },
            items: { type: 'array', items: { properties: {} } },
            kept: { type: 'object', 'x-kubernetes-preserve-unknown-fields': false },
            tuple: { type: 'string', pattern: '(' },
            weird: { type: 'date' },
            nested: { type: 'string', anyOf: [{ type: 'string', description: 'd' }] },
            emb: { 'x-kubernetes-embedded-resource': true },
          },
        },
      },
    };
    const p = `${BASE}.properties[spec].properties`;
    const got = check(schema);
    const want = [
      `${BASE}.additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive`,
      `${BASE}.additionalProperties: Forbidden: must not be used at the root`,
      `${BASE}.properties[kind].type: Invalid value: "integer": must be string`,
      `${BASE}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified`,
      `${p}[both].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive`,
      `${p}[closed].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive`,
      `${p}[emb].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields`,
      `${p}[emb].type: Required value: must be object if x-kubernetes-embedded-resource is true`,
      `${p}[items].items.type: Required value: must not be empty for specified array items`,
      `${p}[kept].x-kubernetes-preserve-unknown-fields: Invalid value: false: must be true or undefined`,
      `${p}[list].items: Required value: must be specified`,
      `${p}[nested].anyOf[0].description: Forbidden: must be empty to be structural`,
      `${p}[nested].anyOf[0].type: Forbidden: must be empty to be structural`,
      `${p}[ref].$ref: Forbidden: $ref is not supported`,
      `${p}[ref].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic`,
      `${p}[weird].type: Unsupported value: "date": supported values: "array", "boolean", "integer", "number", "object", "string"`,
      `${BASE}.properties[spec].type: Required value: must not be empty for specified object fields`,
    ];
    const patternErr = got.find((e) =>
      e.startsWith(`${p}[tuple].pattern: Invalid value: "(": must be a valid regular expression, but isn't: `),
    );
    assert.ok(patternErr, 'the invalid pattern is reported');
    assert.deepEqual(
      got.filter((e) => e !== patternErr),
      want,
    );
  });

  it('defaults must have no unknown fields and be valid against their own schema', () => {
    const schema = {
      type: 'object',
      properties: {
        metadata: { type: 'object' },
        spec: { type: 'object', default: { a: 1, zz: 2 }, properties: { a: { type: 'integer' } } },
        nested: { type: 'object', default: { a: 'x' }, properties: { a: { type: 'integer' } } },
        n: { type: 'integer', default: 'str' },
        ok: { type: 'object', default: { a: 1 }, properties: { a: { type: 'integer', minimum: 1 } } },
      },
    };
    assert.deepEqual(check(schema), [
      `${BASE}.properties[n].default: Invalid value: "string":  in body must be of type integer: "string"`,
      `${BASE}.properties[nested].default.a: Invalid value: "string": a in body must be of type integer: "string"`,
      `${BASE}.properties[spec].default: Invalid value: map[string]interface {}{"a":1, "zz":2}: must not have unknown fields`,
    ]);
  });

  it('a map list names keys every item has (required or defaulted, never null), and set and map items are not nullable', () => {
    const keyed = (items: Record<string, unknown>) => ({
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name', 'port'],
      items,
    });
    const schema = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            ok: keyed({
              type: 'object',
              required: ['name'],
              properties: { name: { type: 'string' }, port: { type: 'integer', default: 80 } },
            }),
            optionalKey: keyed({
              type: 'object',
              required: ['port'],
              properties: { name: { type: 'string' }, port: { type: 'integer' } },
            }),
            nullableKey: keyed({
              type: 'object',
              required: ['name', 'port'],
              properties: { name: { type: 'string', nullable: true }, port: { type: 'integer' } },
            }),
            nullableItems: {
              type: 'array',
              'x-kubernetes-list-type': 'set',
              items: { type: 'string', nullable: true },
            },
          },
        },
      },
    };
    const p = `${BASE}.properties[spec].properties`;
    assert.deepEqual(check(schema), [
      `${p}[nullableItems].items.nullable: Forbidden: cannot be nullable when x-kubernetes-list-type is set`,
      `${p}[nullableKey].items.properties[name].nullable: Forbidden: this property is in x-kubernetes-list-map-keys, so it cannot be nullable`,
      `${p}[optionalKey].items.properties[name].default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property`,
    ]);
  });

  it('Go patterns that JavaScript reads differently are not refused', () => {
    assert.deepEqual(check({ type: 'object', properties: { a: { type: 'string', pattern: '(?i)^[a-z\\_]+$' } } }), []);
  });

  it('list and map types, unsupported keywords, and defaults in top-level metadata', () => {
    const item = { type: 'object', properties: { name: { type: 'string' }, sub: { type: 'object' } } };
    const schema = {
      type: 'object',
      properties: {
        metadata: { type: 'object', properties: { name: { type: 'string', default: 'x' } } },
        spec: {
          type: 'object',
          properties: {
            notList: { type: 'object', 'x-kubernetes-list-type': 'set' },
            badList: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'bag' },
            keysNoType: { type: 'array', items: item, 'x-kubernetes-list-map-keys': ['name'] },
            mapNoKeys: { type: 'array', items: item, 'x-kubernetes-list-type': 'map' },
            mapBadKeys: {
              type: 'array',
              items: item,
              'x-kubernetes-list-type': 'map',
              'x-kubernetes-list-map-keys': ['nope', 'sub', 'sub'],
            },
            mapOfStrings: {
              type: 'array',
              items: { type: 'string' },
              'x-kubernetes-list-type': 'map',
              'x-kubernetes-list-map-keys': ['a'],
            },
            mapType: { type: 'string', 'x-kubernetes-map-type': 'loose' },
            old: {
              type: 'object',
              patternProperties: { '^a': { type: 'string' } },
              dependencies: { a: ['b'] },
              id: 'x',
            },
            tuple: { type: 'array', items: [{ type: 'string' }] },
            nul: { type: 'null' },
          },
        },
      },
    };
    const p = `${BASE}.properties[spec].properties`;
    assert.deepEqual(check(schema), [
      `${BASE}.properties[metadata].properties[name].default: Forbidden: must not be set in top-level metadata`,
      `${p}[badList].x-kubernetes-list-type: Unsupported value: "bag": supported values: "atomic", "set", "map"`,
      `${p}[keysNoType].x-kubernetes-list-type: Required value: must be map if x-kubernetes-list-map-keys is non-empty`,
      `${p}[mapBadKeys].items.properties[sub].default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property`,
      `${p}[mapBadKeys].items.properties[sub].default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property`,
      `${p}[mapBadKeys].items.properties[sub].type: Invalid value: "object": must be a scalar type if parent array's x-kubernetes-list-type is map`,
      `${p}[mapBadKeys].items.properties[sub].type: Invalid value: "object": must be a scalar type if parent array's x-kubernetes-list-type is map`,
      `${p}[mapBadKeys].x-kubernetes-list-map-keys: Invalid value: []string{"nope", "sub", "sub"}: entries must all be names of item properties`,
      `${p}[mapBadKeys].x-kubernetes-list-map-keys: Invalid value: []string{"nope", "sub", "sub"}: must not contain duplicate entries`,
      `${p}[mapNoKeys].x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type is map`,
      `${p}[mapOfStrings].items.type: Invalid value: "string": must be object if parent array's x-kubernetes-list-type is map`,
      `${p}[mapType].type: Invalid value: "string": must be object if x-kubernetes-map-type is specified`,
      `${p}[mapType].x-kubernetes-map-type: Unsupported value: "loose": supported values: "atomic", "granular"`,
      `${p}[notList].type: Invalid value: "object": must be array if x-kubernetes-list-type is specified`,
      `${p}[nul].type: Forbidden: type cannot be set to null, use nullable as an alternative`,
      `${p}[nul].type: Unsupported value: "null": supported values: "array", "boolean", "integer", "number", "object", "string"`,
      `${p}[old].dependencies: Forbidden: dependencies is not supported`,
      `${p}[old].id: Forbidden: id is not supported`,
      `${p}[old].patternProperties: Forbidden: patternProperties is not supported`,
      `${p}[tuple].items: Forbidden: items must be a schema object and not an array`,
    ]);
  });

  it('the root must be an object schema', () => {
    assert.deepEqual(check({ type: 'string' }), [`${BASE}.type: Invalid value: "string": must be object at the root`]);
    assert.deepEqual(check({ properties: {} }), [`${BASE}.type: Required value: must not be empty at the root`]);
    assert.deepEqual(check(undefined), [`${BASE}: Required value: schemas are required`]);
  });
});
