import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { goPrint, goSharpV } from '../../../src/server/crd/gotext.js';
import {
  evaluate,
  evaluateColumn,
  JsonPathError,
  parseJsonPath,
  validateSimpleJsonPath,
} from '../../../src/server/crd/jsonpath.js';

const now = Date.parse('2026-01-01T01:00:00Z');
const obj = {
  metadata: { name: 'r1', creationTimestamp: '2026-01-01T00:50:00Z', labels: { 'app.kubernetes.io/name': 'x' } },
  spec: { replicas: 3, ratio: 0.25, paused: false, selector: { b: 2, a: [1, 'x'] } },
  status: {
    phase: 'Progressing',
    conditions: [
      { type: 'Available', status: 'False', reason: 'Soak' },
      { type: 'Ready', status: 'True', count: 2 },
      { type: 'Stalled', status: 'Unknown', count: 5 },
    ],
    items: [{ x: 'first' }, { x: 'second' }],
  },
};

describe('evaluateColumn: kubectl JSONPath as additionalPrinterColumns use it', () => {
  const cases: [string, string, unknown][] = [
    ['.metadata.name', 'string', 'r1'],
    ['{.metadata.name}', 'string', 'r1'],
    ['$.status.phase', 'string', 'Progressing'],
    ['.spec.replicas', 'integer', 3],
    ['.spec.ratio', 'integer', 0],
    ['.spec.ratio', 'number', 0.25],
    ['.spec.replicas', 'number', 3],
    ['.spec.paused', 'boolean', false],
    ['.spec.replicas', 'string', '3'],
    ['.spec.paused', 'string', 'false'],
    ['.spec.selector', 'string', 'map[a:[1 x] b:2]'],
    ['.status.conditions[0].type', 'string', 'Available'],
    ['.status.conditions[-1].type', 'string', 'Stalled'],
    ['.status.conditions[1:].type', 'string', 'Ready'],
    ['.status.items[*].x', 'string', 'first'],
    ['.status.conditions[?(@.type=="Ready")].status', 'string', 'True'],
    [".status.conditions[?(@.type=='Stalled')].status", 'string', 'Unknown'],
    ['.status.conditions[?(@.status!="False")].type', 'string', 'Ready'],
    ['.status.conditions[?(@.count>2)].type', 'string', 'Stalled'],
    ['.status.conditions[?(@.reason)].type', 'string', 'Available'],
    [".metadata.labels['app.kubernetes.io/name']", 'string', 'x'],
    ['.metadata.labels.app\\.kubernetes\\.io/name', 'string', 'x'],
    ['..reason', 'string', 'Soak'],
    ['.metadata.creationTimestamp', 'date', '10m'],
    ['.status.phase', 'date', '<invalid>'],
    ['.status.missing', 'string', null],
    ['.status.conditions[7].type', 'string', null],
    ['.status.conditions[?(@.type=="Nope")].status', 'string', null],
    ['.status.phase', 'integer', null],
    ['.spec.replicas', 'boolean', null],
  ];
  for (const [path, type, want] of cases) {
    it(`${path} as ${type}`, () => assert.deepEqual(evaluateColumn(obj, path, type, now), want));
  }

  it('an empty timestamp is <unknown>', () => {
    assert.equal(evaluateColumn({ t: '' }, '.t', 'date', now), '<unknown>');
  });

  it('selects every match in document order', () => {
    assert.deepEqual(evaluate(parseJsonPath('.status.conditions[*].type'), [obj]), ['Available', 'Ready', 'Stalled']);
    assert.deepEqual(evaluate(parseJsonPath('.status.conditions[0:3:2].type'), [obj]), ['Available', 'Stalled']);
  });

  it('refuses what it cannot parse', () => {
    assert.throws(() => parseJsonPath('.status.conditions[?(@.type=="Ready"'), JsonPathError);
    assert.throws(() => parseJsonPath('.a[x y]'), JsonPathError);
  });

  it('prints values as Go prints them', () => {
    assert.equal(goPrint([1, 2.5, 1e21, null]), '[1 2.5 1e+21 <nil>]');
    assert.equal(
      goSharpV({ b: [1, 'x'], a: null, c: 1000000.5 }),
      'map[string]interface {}{"a":interface {}(nil), "b":[]interface {}{1, "x"}, "c":1.0000005e+06}',
    );
  });

  it("a CRD's column path must start with a dot", () => {
    const at = 'spec.versions[0].additionalPrinterColumns[0].jsonPath';
    assert.deepEqual(validateSimpleJsonPath('.status.phase', at), []);
    assert.deepEqual(validateSimpleJsonPath('status.phase', at).map(String), [
      `${at}: Invalid value: "status.phase": must be a simple json path starting with .`,
    ]);
    assert.deepEqual(validateSimpleJsonPath('', at).map(String), [`${at}: Invalid value: "": must not be empty`]);
  });
});
