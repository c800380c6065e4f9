import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { compileSchema, unknownField } from '../../../src/server/crd/schema.js';

const repoRoot = resolve(fileURLToPath(import.meta.url), '../../../../..');

/** A schema with every keyword the validator translates. */
const schema = {
  type: 'object',
  properties: {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: { type: 'object' },
    spec: {
      type: 'object',
      required: ['foo'],
      properties: {
        foo: { type: 'string' },
        replicas: { type: 'integer', format: 'int32', minimum: 1, maximum: 10 },
        ratio: { type: 'number', minimum: 0, exclusiveMinimum: true, maximum: 1, exclusiveMaximum: true },
        step: { type: 'integer', multipleOf: 5 },
        half: { type: 'integer', minimum: 0.5, maximum: 2.5 },
        weight: { type: 'number', maximum: 1000000 },
        policy: { type: 'string', enum: ['Revert', 'Halt'] },
        level: { type: 'integer', enum: [1, 2] },
        name: { type: 'string', minLength: 2, maxLength: 5, pattern: '^[a-z]+$' },
        when: { type: 'string', format: 'date-time' },
        day: { type: 'string', format: 'date' },
        uid: { type: 'string', format: 'uuid' },
        unknownFormat: { type: 'string', format: 'k8s-fancy' },
        int32String: { type: 'string', format: 'int32' },
        canary: { 'x-kubernetes-int-or-string': true, pattern: '^[0-9]+%?$' },
        opt: { type: 'string', nullable: true },
        mode: { type: 'string', nullable: true, enum: ['A', 'B'] },
        tags: { type: 'array', minItems: 1, maxItems: 2, items: { type: 'string' } },
        labels: { type: 'object', minProperties: 1, maxProperties: 2, additionalProperties: { type: 'integer' } },
        entries: {
          type: 'array',
          items: { type: 'object', required: ['name'], properties: { name: { type: 'string', minLength: 1 } } },
        },
      },
    },
  },
};

const base = (spec: Record<string, unknown>) => ({
  apiVersion: 'x.io/v1',
  kind: 'X',
  metadata: { name: 'a' },
  spec: { foo: 'f', ...spec },
});

describe('validate: kube-apiserver field errors for every keyword', () => {
  const s = compileSchema(schema);
  const cases: [string, Record<string, unknown>, string[]][] = [
    ['a valid object', {}, []],
    ['required', { foo: undefined }, ['spec.foo: Required value']],
    [
      'type',
      { replicas: 'string' },
      ['spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"'],
    ],
    [
      'type of a float for an integer',
      { replicas: 1.5 },
      ['spec.replicas: Invalid value: "number": spec.replicas in body must be of type integer: "number"'],
    ],
    [
      'type of an object for a string',
      { foo: {} },
      ['spec.foo: Invalid value: "object": spec.foo in body must be of type string: "object"'],
    ],
    [
      'minimum',
      { replicas: 0 },
      ['spec.replicas: Invalid value: 0: spec.replicas in body should be greater than or equal to 1'],
    ],
    [
      'maximum',
      { replicas: 11 },
      ['spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10'],
    ],
    ['exclusive minimum', { ratio: 0 }, ['spec.ratio: Invalid value: 0: spec.ratio in body should be greater than 0']],
    ['exclusive maximum', { ratio: 1.5 }, ['spec.ratio: Invalid value: 1.5: spec.ratio in body should be less than 1']],
    [
      'a float limit printed as Go prints a float64',
      { weight: 2000000.5 },
      ['spec.weight: Invalid value: 2000000.5: spec.weight in body should be less than or equal to 1e+06'],
    ],
    ['multipleOf', { step: 7 }, ['spec.step: Invalid value: 7: spec.step in body should be a multiple of 5']],
    ['fractional bounds on an integer are truncated, as Go converts them to int64', { half: 0 }, []],
    [
      'fractional bounds, broken',
      { half: 3 },
      ['spec.half: Invalid value: 3: spec.half in body should be less than or equal to 2'],
    ],
    ['enum', { policy: 'x' }, ['spec.policy: Unsupported value: "x": supported values: "Revert", "Halt"']],
    ['enum of numbers', { level: 3 }, ['spec.level: Unsupported value: 3: supported values: "1", "2"']],
    ['minLength', { name: 'a' }, ['spec.name: Invalid value: "a": spec.name in body should be at least 2 chars long']],
    [
      'maxLength (the first failing string check only)',
      { name: 'ABCDEFG' },
      ['spec.name: Too long: may not be longer than 5'],
    ],
    ['pattern', { name: 'ABC' }, ['spec.name: Invalid value: "ABC": spec.name in body should match \'^[a-z]+$\'']],
    [
      'format date-time',
      { when: 'yesterday' },
      ['spec.when: Invalid value: "yesterday": spec.when in body must be of type date-time: "yesterday"'],
    ],
    [
      'format date-time with a number',
      { when: 5 },
      ['spec.when: Invalid value: "int64": spec.when in body must be of type date-time: "int64"'],
    ],
    [
      'format date',
      { day: '2026-02-30' },
      ['spec.day: Invalid value: "2026-02-30": spec.day in body must be of type date: "2026-02-30"'],
    ],
    [
      'format uuid',
      { uid: 'nope' },
      ['spec.uid: Invalid value: "nope": spec.uid in body must be of type uuid: "nope"'],
    ],
    [
      'valid formats',
      { when: '2026-01-01T10:00:00Z', day: '2024-02-29', uid: '123e4567-e89b-12d3-a456-426614174000' },
      [],
    ],
    ['unknown formats and int32 on strings are not checked', { unknownFormat: '!', int32String: 'x' }, []],
    ['int-or-string accepts both', { canary: 3 }, []],
    ['int-or-string accepts a string', { canary: '30%' }, []],
    [
      'int-or-string refuses the rest',
      { canary: true },
      ['spec.canary: Invalid value: "boolean": spec.canary in body must be of type integer,string: "boolean"'],
    ],
    [
      'int-or-string keeps string checks',
      { canary: 'half' },
      ['spec.canary: Invalid value: "half": spec.canary in body should match \'^[0-9]+%?$\''],
    ],
    ['nullable', { opt: null }, []],
    [
      'a nullable enum given null, printed as apimachinery prints nil',
      { mode: null },
      ['spec.mode: Unsupported value: "null": supported values: "A", "B"'],
    ],
    [
      'null where not nullable',
      { foo: null },
      ['spec.foo: Invalid value: "null": spec.foo in body must be of type string: "null"'],
    ],
    ['minItems', { tags: [] }, ['spec.tags: Invalid value: 0: spec.tags in body should have at least 1 items']],
    ['maxItems', { tags: ['a', 'b', 'c'] }, ['spec.tags: Too many: 3: must have at most 2 items']],
    [
      'items',
      { tags: ['a', 1] },
      ['spec.tags[1]: Invalid value: "integer": spec.tags[1] in body must be of type string: "integer"'],
    ],
    [
      'minProperties',
      { labels: {} },
      ['spec.labels: Invalid value: 0: spec.labels in body should have at least 1 properties'],
    ],
    ['maxProperties', { labels: { a: 1, b: 2, c: 3 } }, ['spec.labels: Too many: 3: must have at most 2 items']],
    [
      'additionalProperties',
      { labels: { a: 'x' } },
      ['spec.labels.a: Invalid value: "string": spec.labels.a in body must be of type integer: "string"'],
    ],
    [
      'paths into arrays of objects',
      { entries: [{ name: 'a' }, {}, { name: '' }] },
      [
        'spec.entries[1].name: Required value',
        'spec.entries[2].name: Invalid value: "": spec.entries[2].name in body should be at least 1 chars long',
      ],
    ],
  ];
  for (const [name, spec, want] of cases) {
    it(name, () => {
      const obj = base(spec);
      for (const [k, v] of Object.entries(obj.spec))
        if (v === undefined) delete (obj.spec as Record<string, unknown>)[k];
      assert.deepEqual(s.validate(obj).map(String), want);
    });
  }

  it('reports several errors in a stable order', () => {
    const obj = base({ replicas: 'x', policy: 'x', tags: [] });
    const first = s.validate(obj).map(String);
    assert.equal(first.length, 3);
    assert.deepEqual(s.validate(structuredClone(obj)).map(String), first);
  });
});

describe('validate: junctors and Go patterns', () => {
  const s = compileSchema({
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          a: { type: 'integer', anyOf: [{ minimum: 10 }, { maximum: 2 }] },
          o: { type: 'integer', oneOf: [{ minimum: 1 }, { minimum: 2 }] },
          n: { type: 'string', not: { enum: ['x'] } },
          all: { type: 'string', allOf: [{ minLength: 2 }, { pattern: '^a' }] },
          ci: { type: 'string', pattern: '(?i)^abc$' },
          esc: { type: 'string', pattern: '^[a-z\\_]+$' },
          not: { type: 'object', properties: { anyOf: { type: 'integer' } } },
        },
      },
    },
  });

  it("anyOf, oneOf and not fail with an error without a field, and the first branch's errors", () => {
    assert.deepEqual(s.validate({ spec: { a: 5, o: 3, n: 'x' } }).map(String), [
      '<nil>: Invalid value: "": "spec.a" must validate at least one schema (anyOf)',
      'spec.a: Invalid value: 5: spec.a in body should be greater than or equal to 10',
      '<nil>: Invalid value: "": "spec.o" must validate one and only one schema (oneOf). Found 2 valid alternatives',
      '<nil>: Invalid value: "": "spec.n" must not validate the schema (not)',
    ]);
    assert.deepEqual(s.validate({ spec: { o: 0 } }).map(String), [
      '<nil>: Invalid value: "": "spec.o" must validate one and only one schema (oneOf). Found none valid',
      'spec.o: Invalid value: 0: spec.o in body should be greater than or equal to 1',
    ]);
    assert.deepEqual(s.validate({ spec: { a: 11, o: 1, n: 'y' } }), []);
  });

  it('int-or-string as controller-gen writes it (anyOf integer, string)', () => {
    const port = compileSchema({
      type: 'object',
      properties: { port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] } },
    });
    assert.deepEqual(port.validate({ port: 80 }), []);
    assert.deepEqual(port.validate({ port: 'http' }), []);
    assert.deepEqual(port.validate({ port: true }).map(String), [
      'port: Invalid value: "boolean": port in body must be of type integer,string: "boolean"',
      '<nil>: Invalid value: "": "port" must validate at least one schema (anyOf)',
      'port: Invalid value: "boolean": port in body must be of type integer: "boolean"',
    ]);
  });

  it('properties named like keywords are fields, not alternatives', () => {
    assert.deepEqual(s.validate({ spec: { not: { anyOf: 'x' } } }).map(String), [
      'spec.not.anyOf: Invalid value: "string": spec.not.anyOf in body must be of type integer: "string"',
    ]);
  });

  it('each allOf schema reports its own first string failure', () => {
    assert.deepEqual(s.validate({ spec: { all: 'b' } }).map(String), [
      'spec.all: Invalid value: "b": spec.all in body should be at least 2 chars long',
      'spec.all: Invalid value: "b": spec.all in body should match \'^a\'',
    ]);
  });

  it('Go patterns: a leading (?i) and escapes JavaScript unicode mode refuses', () => {
    assert.deepEqual(s.validate({ spec: { ci: 'ABC', esc: 'a_b' } }), []);
    assert.deepEqual(s.validate({ spec: { ci: 'ABD', esc: 'A' } }).map(String), [
      'spec.ci: Invalid value: "ABD": spec.ci in body should match \'(?i)^abc$\'',
      'spec.esc: Invalid value: "A": spec.esc in body should match \'^[a-z\\_]+$\'',
    ]);
  });
});

describe('validate: embedded resources', () => {
  const s = compileSchema({
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          template: {
            type: 'object',
            'x-kubernetes-embedded-resource': true,
            'x-kubernetes-preserve-unknown-fields': true,
          },
          byName: {
            type: 'object',
            additionalProperties: {
              type: 'object',
              'x-kubernetes-embedded-resource': true,
              'x-kubernetes-preserve-unknown-fields': true,
            },
          },
        },
      },
    },
  });

  it('bad values print in Go syntax', () => {
    assert.deepEqual(s.validate({ spec: { template: { apiVersion: { v: 1 }, kind: null } } }).map(String), [
      'spec.template.apiVersion: Invalid value: map[string]interface {}{"v":1}: must be a string',
      'spec.template.kind: Invalid value: "null": must be a string',
    ]);
  });

  it('a well-formed embedded object passes, without a name', () => {
    assert.deepEqual(
      s.validate({ spec: { template: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { labels: { a: 'b' } } } } }),
      [],
    );
  });

  it("apiVersion and kind are required and well-formed; metadata is checked as an object's", () => {
    assert.deepEqual(
      s
        .validate({
          spec: { template: { metadata: { name: 'a/b' } }, byName: { x: { apiVersion: 'a/b/c', kind: 'Not_A_Kind' } } },
        })
        .map(String),
      [
        'spec.template.apiVersion: Required value',
        'spec.template.kind: Required value',
        'spec.template.metadata.name: Invalid value: "a/b": may not contain \'/\'',
        'spec.byName[x].apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c',
        "spec.byName[x].kind: Invalid value: \"Not_A_Kind\": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
      ],
    );
  });
});

describe('validate: list types', () => {
  const s = compileSchema({
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
          ports: {
            type: 'array',
            'x-kubernetes-list-type': 'map',
            'x-kubernetes-list-map-keys': ['name'],
            items: { type: 'object', properties: { name: { type: 'string' }, port: { type: 'integer' } } },
          },
          routes: {
            type: 'array',
            'x-kubernetes-list-type': 'map',
            'x-kubernetes-list-map-keys': ['host', 'path'],
            items: { type: 'object', properties: { host: { type: 'string' }, path: { type: 'string' } } },
          },
        },
      },
    },
  });

  it('a set reports each repeated item once, at its second appearance', () => {
    assert.deepEqual(s.validate({ spec: { tags: ['a', 'b', 'a', 'a', 'b', 'c'] } }).map(String), [
      'spec.tags[2]: Duplicate value: "a"',
      'spec.tags[4]: Duplicate value: "b"',
    ]);
  });

  it("a map reports repeated keys with Go's rendering of the key", () => {
    const obj = {
      spec: {
        ports: [{ name: 'http', port: 80 }, { name: 'http', port: 81 }, { port: 1 }, { port: 2 }],
        routes: [
          { host: 'a', path: '/' },
          { host: 'a', path: '/x' },
          { host: 'a', path: '/', extra: 1 },
        ],
      },
    };
    assert.deepEqual(s.validate(obj).map(String), [
      'spec.ports[1]: Duplicate value: map[string]interface {}{"name":"http"}',
      'spec.ports[3]: Duplicate value: map[string]interface {}{}',
      'spec.routes[2]: Duplicate value: map[string]interface {}{"host":"a", "path":"/"}',
    ]);
  });

  it('unique lists pass', () => {
    assert.deepEqual(s.validate({ spec: { tags: ['a', 'b'], ports: [{ name: 'a' }, { name: 'b' }] } }), []);
  });
});

describe('compileSchema', () => {
  it('compiles any schema; keywords of the wrong JSON type are ignored rather than thrown on', () => {
    const weird: unknown[] = [
      {
        type: 'object',
        required: 'x',
        properties: { a: { minimum: '5', maxLength: 'x', enum: 'x', pattern: 5, allOf: 'x', format: 7 } },
      },
      null,
      5,
      { properties: { a: null } },
    ];
    for (const w of weird) assert.deepEqual(compileSchema(w).validate({ a: 1 }), []);
  });
});

describe('prune', () => {
  const s = compileSchema({
    type: 'object',
    properties: {
      metadata: { type: 'object' },
      spec: {
        type: 'object',
        properties: {
          a: { type: 'string' },
          list: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } },
          map: { type: 'object', additionalProperties: { type: 'object', properties: { v: { type: 'integer' } } } },
          free: {
            type: 'object',
            'x-kubernetes-preserve-unknown-fields': true,
            properties: { known: { type: 'object', properties: { k: { type: 'string' } } } },
          },
          port: { 'x-kubernetes-int-or-string': true },
          pod: {
            type: 'object',
            'x-kubernetes-embedded-resource': true,
            properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          },
        },
      },
    },
  });

  it('removes undeclared fields and reports their paths sorted', () => {
    const obj: Record<string, unknown> = {
      apiVersion: 'x.io/v1',
      kind: 'X',
      metadata: { name: 'n', anything: 1 },
      top: 1,
      spec: {
        a: 'x',
        b: 1,
        list: [{ name: 'n', extra: true }],
        map: { one: { v: 1, w: 2 } },
        free: { anything: { deep: 1 }, known: { k: 'x', z: 1 } },
        port: 8080,
        pod: {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: 'p', bogus: 1, creationTimestamp: null },
          spec: { containers: [] },
          junk: 1,
        },
      },
    };
    assert.deepEqual(s.prune(obj), [
      'spec.b',
      'spec.free.known.z',
      'spec.list[0].extra',
      'spec.map.one.w',
      'spec.pod.junk',
      'spec.pod.metadata.bogus',
      'top',
    ]);
    assert.deepEqual(obj, {
      apiVersion: 'x.io/v1',
      kind: 'X',
      metadata: { name: 'n', anything: 1 },
      spec: {
        a: 'x',
        list: [{ name: 'n' }],
        map: { one: { v: 1 } },
        free: { anything: { deep: 1 }, known: { k: 'x' } },
        port: 8080,
        pod: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [] } },
      },
    });
  });

  it('names each path as the unknown-field warning does', () => {
    assert.equal(unknownField('spec.foo'), 'unknown field "spec.foo"');
  });

  it('additionalProperties: true keeps the keys but knows nothing inside their values', () => {
    const loose = compileSchema({
      type: 'object',
      properties: { spec: { type: 'object', additionalProperties: true } },
    });
    const obj: Record<string, unknown> = { spec: { a: 1, b: { c: 1 }, l: [{ d: 1 }, 2] } };
    assert.deepEqual(loose.prune(obj), ['spec.b.c', 'spec.l[0].d']);
    assert.deepEqual(obj, { spec: { a: 1, b: {}, l: [{}, 2] } });
  });

  it('an int-or-string given an object loses its keys', () => {
    const obj: Record<string, unknown> = { spec: { port: { a: 1 } } };
    assert.deepEqual(s.prune(obj), ['spec.port.a']);
    assert.deepEqual(obj, { spec: { port: {} } });
  });
});

describe('applyDefaults', () => {
  const s = compileSchema({
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        default: {},
        properties: {
          strategy: {
            type: 'object',
            default: {},
            properties: {
              canary: { 'x-kubernetes-int-or-string': true, default: 1 },
              pct: { 'x-kubernetes-int-or-string': true, default: '10%' },
            },
          },
          mode: { type: 'string', default: 'Auto' },
          nullable: { type: 'string', nullable: true, default: 'd' },
          noDefault: { type: 'string' },
          list: { type: 'array', items: { type: 'object', properties: { w: { type: 'integer', default: 5 } } } },
          nulls: { type: 'array', items: { type: 'object', default: { x: 1 } } },
          map: {
            type: 'object',
            additionalProperties: { type: 'object', properties: { on: { type: 'boolean', default: true } } },
          },
        },
      },
    },
  });

  it('fills absent fields recursively, including inside a default it just set', () => {
    const obj: Record<string, unknown> = {};
    s.applyDefaults(obj);
    assert.deepEqual(obj, { spec: { strategy: { canary: 1, pct: '10%' }, mode: 'Auto', nullable: 'd' } });
  });

  it('keeps values that are there, defaults inside array items and additionalProperties', () => {
    const obj: Record<string, unknown> = {
      spec: { mode: 'Manual', strategy: { canary: '50%' }, list: [{}, { w: 1 }], map: { a: {}, b: { on: false } } },
    };
    s.applyDefaults(obj);
    assert.deepEqual(obj, {
      spec: {
        mode: 'Manual',
        nullable: 'd',
        strategy: { canary: '50%', pct: '10%' },
        list: [{ w: 5 }, { w: 1 }],
        map: { a: { on: true }, b: { on: false } },
      },
    });
  });

  it('a null where null is not allowed takes the default, or is dropped without one; a nullable null stays', () => {
    const obj: Record<string, unknown> = {
      spec: { mode: null, noDefault: null, nullable: null, nulls: [null, { y: 2 }] },
    };
    s.applyDefaults(obj);
    assert.deepEqual(obj, {
      spec: { mode: 'Auto', nullable: null, nulls: [{ x: 1 }, { y: 2 }], strategy: { canary: 1, pct: '10%' } },
    });
  });

  it('reaches a default below fields that declare none, and drops nulls where nothing below declares a default', () => {
    const deep = compileSchema({
      type: 'object',
      properties: {
        status: {
          type: 'object',
          properties: {
            a: {
              type: 'object',
              properties: { b: { type: 'object', properties: { leaf: { type: 'string', default: 'x' } } } },
            },
            plain: { type: 'object', additionalProperties: { type: 'object', properties: { s: { type: 'string' } } } },
          },
        },
      },
    });
    const obj: Record<string, unknown> = {
      metadata: { managedFields: [{ fieldsV1: { 'f:x': null } }] },
      status: { a: { b: {} }, plain: { n1: { s: null }, n2: { s: 'kept' } } },
    };
    deep.applyDefaults(obj);
    assert.deepEqual(obj, {
      metadata: { managedFields: [{ fieldsV1: { 'f:x': null } }] },
      status: { a: { b: { leaf: 'x' } }, plain: { n1: {}, n2: { s: 'kept' } } },
    });
  });

  it('each default is a copy', () => {
    const a: Record<string, unknown> = {};
    const b: Record<string, unknown> = {};
    s.applyDefaults(a);
    s.applyDefaults(b);
    ((a['spec'] as Record<string, unknown>)['strategy'] as Record<string, unknown>)['canary'] = 9;
    assert.deepEqual((b['spec'] as Record<string, unknown>)['strategy'], { canary: 1, pct: '10%' });
  });
});

describe('the NodeConfigRollout CRD (deploy/crds)', () => {
  const crd = parse(readFileSync(resolve(repoRoot, 'deploy/crds/nodeconfigrollouts.dkc.io.yaml'), 'utf8')) as {
    spec: { versions: { schema: { openAPIV3Schema: unknown } }[] };
  };
  const s = compileSchema(crd.spec.versions[0]!.schema.openAPIV3Schema);
  const rollout = (spec: Record<string, unknown>): Record<string, unknown> => ({
    apiVersion: 'dkc.io/v1alpha1',
    kind: 'NodeConfigRollout',
    metadata: { name: 'r1' },
    spec: {
      configSource: { configMap: { namespace: 'kube-system', name: 'cfg', kubeletConfigKey: 'kubelet' } },
      nodeSelector: { matchLabels: { pool: 'a' } },
      ...spec,
    },
  });

  it('a full rollout takes the documented defaults and is valid', () => {
    const obj = rollout({});
    assert.deepEqual(s.prune(obj), []);
    s.applyDefaults(obj);
    const spec = obj['spec'] as Record<string, unknown>;
    assert.deepEqual(spec['strategy'], {
      canary: 1,
      maxUnavailable: 1,
      soakSeconds: 0,
      pauseAfterCanary: false,
      skipIncompatible: false,
    });
    assert.equal(spec['progressDeadlineSeconds'], 120);
    assert.equal(spec['failurePolicy'], 'Revert');
    assert.deepEqual(s.validate(obj), []);
  });

  it('failurePolicy Foo is an unsupported value; a bad canary and a missing key are reported', () => {
    const obj = rollout({
      failurePolicy: 'Foo',
      strategy: { canary: 'lots' },
      configSource: { configMap: { namespace: 'kube-system', name: 'cfg' } },
    });
    s.applyDefaults(obj);
    assert.deepEqual(s.validate(obj).map(String), [
      'spec.configSource.configMap.kubeletConfigKey: Required value',
      'spec.strategy.canary: Invalid value: "lots": spec.strategy.canary in body should match \'^(0|[1-9][0-9]*)%?$\'',
      'spec.failurePolicy: Unsupported value: "Foo": supported values: "Revert", "Halt"',
    ]);
  });

  it('takes layers instead of configSource, and refuses both, neither and no layer', () => {
    const layers = [{ configMap: { namespace: 'default', name: 'base', kubeletConfigKey: 'kubelet' } }];
    const layered = rollout({ layers });
    delete (layered['spec'] as Record<string, unknown>)['configSource'];
    assert.deepEqual(s.validate(layered), []);
    // kube-apiserver's own wording for a oneOf, which names the field in the message rather than the path.
    const oneOf = '<nil>: Invalid value: "": "spec" must validate one and only one schema (oneOf).';
    assert.deepEqual(s.validate(rollout({ layers })).map(String), [`${oneOf} Found 2 valid alternatives`]);
    const neither = rollout({});
    delete (neither['spec'] as Record<string, unknown>)['configSource'];
    assert.deepEqual(s.validate(neither).map(String), [
      `${oneOf} Found none valid`,
      'spec.configSource: Required value',
    ]);
    const empty = rollout({ layers: [] });
    delete (empty['spec'] as Record<string, unknown>)['configSource'];
    assert.match(
      s.validate(empty).map(String).join('\n'),
      /spec\.layers: Invalid value: 0: spec\.layers in body should have at least 1 items/,
    );
  });

  it('unknown spec fields are pruned with their paths', () => {
    const obj = rollout({ foo: 1, strategy: { canary: '10%', speed: 'fast' } });
    assert.deepEqual(s.prune(obj), ['spec.foo', 'spec.strategy.speed']);
  });
});
