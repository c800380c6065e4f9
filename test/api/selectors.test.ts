import { test, describe } from 'node:test';
import assert from 'node:assert/strict';

import {
  SelectorError,
  checkSupportedFields,
  escapeFieldValue,
  fieldSelectorString,
  labelSelectorString,
  matchesFields,
  matchesLabels,
  newLabelRequirement,
  parseFieldSelector,
  parseLabelSelector,
  unescapeFieldValue,
  type FieldRequirement,
  type LabelRequirement,
} from '../../src/api/selectors.js';

const QNAME =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

const r = (key: string, operator: LabelRequirement['operator'], values: string[] = []): LabelRequirement => ({
  key,
  operator,
  values,
});

describe('label selector parsing', () => {
  const cases: Array<[string, LabelRequirement[]]> = [
    ['', []],
    ['   ', []],
    ['a=b', [r('a', '=', ['b'])]],
    ['a==b', [r('a', '==', ['b'])]],
    ['a!=b', [r('a', '!=', ['b'])]],
    ['a in (y,x)', [r('a', 'in', ['x', 'y'])]],
    ['a notin (x)', [r('a', 'notin', ['x'])]],
    ['a', [r('a', 'exists')]],
    ['!a', [r('a', '!')]],
    ['! a', [r('a', '!')]],
    [' a = b , c in ( x , y ) ,! d ', [r('a', '=', ['b']), r('c', 'in', ['x', 'y']), r('d', '!')]],
    ['b=1,a=2', [r('a', '=', ['2']), r('b', '=', ['1'])]],
    ['a=', [r('a', '=', [''])]],
    ['a=,b', [r('a', '=', ['']), r('b', 'exists')]],
    ['a in ()', [r('a', 'in', [''])]],
    ['a in (,x)', [r('a', 'in', ['', 'x'])]],
    ['a in (x,)', [r('a', 'in', ['', 'x'])]],
    ['a in (x,,y)', [r('a', 'in', ['', 'x', 'y'])]],
    ['a in (x,x)', [r('a', 'in', ['x'])]],
    ['in in (in,notin)', [r('in', 'in', ['in', 'notin'])]],
    ['example.com/role=web', [r('example.com/role', '=', ['web'])]],
    ['n>5', [r('n', 'gt', ['5'])]],
    ['n<5', [r('n', 'lt', ['5'])]],
    ['a\tin\n(x)', [r('a', 'in', ['x'])]],
  ];
  for (const [input, expected] of cases) {
    test(JSON.stringify(input), () => assert.deepEqual(parseLabelSelector(input), expected));
  }
});

describe('label selector errors', () => {
  const cases: Array<[string, string]> = [
    ['a=b,', "found '', expected: identifier after ','"],
    ['a=b,,c', "found ',', expected: identifier after ','"],
    ['a b', "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"],
    ['a in x', "unable to parse requirement: found 'x' expected: '('"],
    ['a in (x y)', "unable to parse requirement: found 'y', expected: ',' or ')'"],
    ['a in (x', "unable to parse requirement: found '', expected: ',' or ')'"],
    ['a in (=)', "unable to parse requirement: found '=', expected: ',', ')' or identifier"],
    ['!a=b', "found '=', expected: ',' or 'end of string'"],
    ['a=b c', "found 'c', expected: ',' or 'end of string'"],
    ['=a', "found '=', expected: !, identifier, or 'end of string'"],
    [',a', "found ',', expected: !, identifier, or 'end of string'"],
    ['a=b=c', "found '=', expected: ',' or 'end of string'"],
    ['a===', "unable to parse requirement: found '=', expected: identifier"],
    ['a-=b', `unable to parse requirement: invalid label key "a-": ${QNAME}`],
    ['a=b$', `unable to parse requirement: invalid label value: "b$": at key: "a": ${LABEL_VALUE}`],
    ['a in (x,-y)', `unable to parse requirement: invalid label value: "-y": at key: "a": ${LABEL_VALUE}`],
    // Gt/Lt values are still label values, so negative numbers cannot be expressed.
    ['n<-5', `unable to parse requirement: invalid label value: "-5": at key: "n": ${LABEL_VALUE}`],
    ['n>x', "unable to parse requirement: for 'Gt', 'Lt' operators, the value must be an integer"],
  ];
  for (const [input, message] of cases) {
    test(JSON.stringify(input), () => {
      assert.throws(
        () => parseLabelSelector(input),
        (e: unknown) =>
          e instanceof SelectorError && e.code === 'DKC_API_LABEL_SELECTOR_SYNTAX' && e.message === message,
        `expected ${message}`,
      );
    });
  }

  test('newLabelRequirement checks value counts', () => {
    assert.throws(() => newLabelRequirement('a', 'in', []), /for 'in', 'notin' operators, values set can't be empty/);
    assert.throws(
      () => newLabelRequirement('a', '=', ['x', 'y']),
      /exact-match compatibility requires one single value/,
    );
    assert.throws(
      () => newLabelRequirement('a', 'exists', ['x']),
      /values set must be empty for exists and does not exist/,
    );
    assert.throws(
      () => newLabelRequirement('a', 'gt', ['1', '2']),
      /for 'Gt', 'Lt' operators, exactly one value is required/,
    );
  });
});

describe('label selector matching', () => {
  const labels = { env: 'prod', tier: 'web', empty: '', n: '10' };
  const cases: Array<[string, boolean]> = [
    ['', true],
    ['env=prod', true],
    ['env==prod', true],
    ['env=dev', false],
    ['env!=prod', false],
    ['env!=dev', true],
    ['missing!=x', true],
    ['missing=x', false],
    ['env in (dev,prod)', true],
    ['env in (dev)', false],
    ['missing in (x)', false],
    ['env notin (prod)', false],
    ['missing notin (x)', true],
    ['env', true],
    ['missing', false],
    ['!env', false],
    ['!missing', true],
    ['env=prod,tier=db', false],
    ['env=prod,tier=web', true],
    ['empty=', true],
    ['missing=', false],
    ['empty in ()', true],
    ['n>5', true],
    ['n>10', false],
    ['n<11', true],
    ['env>1', false],
    ['missing<1', false],
  ];
  for (const [sel, want] of cases) {
    test(`${JSON.stringify(sel)} → ${want}`, () => assert.equal(matchesLabels(parseLabelSelector(sel), labels), want));
  }

  test('objects without labels', () => {
    assert.equal(matchesLabels(parseLabelSelector('!a'), undefined), true);
    assert.equal(matchesLabels(parseLabelSelector('a'), null), false);
    assert.equal(matchesLabels(parseLabelSelector('a!=b'), {}), true);
  });

  test('inherited object properties are not labels', () => {
    assert.equal(matchesLabels(parseLabelSelector('toString'), {}), false);
  });

  test('canonical string form', () => {
    assert.equal(
      labelSelectorString(parseLabelSelector(' b in (y,x) , a , !c, d!=e, f==g, n>3 ')),
      'a,b in (x,y),!c,d!=e,f==g,n>3',
    );
  });
});

const f = (field: string, operator: FieldRequirement['operator'], value: string): FieldRequirement => ({
  field,
  operator,
  value,
});

describe('field selector parsing', () => {
  const cases: Array<[string, FieldRequirement[]]> = [
    ['', []],
    ['metadata.name=x', [f('metadata.name', '=', 'x')]],
    ['metadata.name==x', [f('metadata.name', '=', 'x')]],
    ['status.phase!=Failed', [f('status.phase', '!=', 'Failed')]],
    ['involvedObject.namespace=', [f('involvedObject.namespace', '=', '')]],
    ['a=b,,c=d,', [f('a', '=', 'b'), f('c', '=', 'd')]],
    ['a=x\\,y', [f('a', '=', 'x,y')]],
    ['a=x\\=y', [f('a', '=', 'x=y')]],
    ['a=x\\\\y', [f('a', '=', 'x\\y')]],
    ['a=!b', [f('a', '=', '!b')]],
    ['=v', [f('', '=', 'v')]],
    ['a= b ', [f('a', '=', ' b ')]],
  ];
  for (const [input, expected] of cases) {
    test(JSON.stringify(input), () => assert.deepEqual(parseFieldSelector(input), expected));
  }

  test('kubectl describe node: terms in any order give the same requirements', () => {
    const terms = [
      'involvedObject.uid=n1',
      'involvedObject.name=n1',
      'involvedObject.namespace=',
      'involvedObject.kind=Node',
    ];
    const expected = [
      f('involvedObject.kind', '=', 'Node'),
      f('involvedObject.name', '=', 'n1'),
      f('involvedObject.namespace', '=', ''),
      f('involvedObject.uid', '=', 'n1'),
    ];
    const perms = (xs: string[]): string[][] =>
      xs.length <= 1
        ? [xs]
        : xs.flatMap((x, i) => perms([...xs.slice(0, i), ...xs.slice(i + 1)]).map((p) => [x, ...p]));
    const all = perms(terms);
    assert.equal(all.length, 24);
    for (const p of all) assert.deepEqual(parseFieldSelector(p.join(',')), expected, p.join(','));
  });

  test('kubectl describe node: pods on a node that are not finished', () => {
    const reqs = parseFieldSelector('status.phase!=Succeeded,spec.nodeName=n1,status.phase!=Failed');
    assert.deepEqual(reqs, [
      f('spec.nodeName', '=', 'n1'),
      f('status.phase', '!=', 'Failed'),
      f('status.phase', '!=', 'Succeeded'),
    ]);
    const pod = (node: string, phase: string) => (p: string) => ({ 'spec.nodeName': node, 'status.phase': phase })[p];
    assert.equal(matchesFields(reqs, pod('n1', 'Running')), true);
    assert.equal(matchesFields(reqs, pod('n1', 'Failed')), false);
    assert.equal(matchesFields(reqs, pod('n1', 'Succeeded')), false);
    assert.equal(matchesFields(reqs, pod('n2', 'Running')), false);
  });

  test('an empty value matches an empty or missing field', () => {
    const reqs = parseFieldSelector('involvedObject.namespace=,involvedObject.kind=Node');
    assert.equal(
      matchesFields(reqs, (p) => ({ 'involvedObject.kind': 'Node' })[p]),
      true,
    );
    assert.equal(
      matchesFields(reqs, (p) => ({ 'involvedObject.kind': 'Node', 'involvedObject.namespace': '' })[p]),
      true,
    );
    assert.equal(
      matchesFields(reqs, (p) => ({ 'involvedObject.kind': 'Node', 'involvedObject.namespace': 'x' })[p]),
      false,
    );
  });

  test('no requirements match everything', () => {
    assert.equal(
      matchesFields([], () => undefined),
      true,
    );
  });
});

describe('field selector errors', () => {
  const cases: Array<[string, string]> = [
    ['abc', "invalid selector: 'abc'; can't understand 'abc'"],
    ['a=b,zzz', "invalid selector: 'a=b,zzz'; can't understand 'zzz'"],
    ['a=b=c', 'invalid field selector: unescaped character in value: 61'],
    ['a!==b', 'invalid field selector: unescaped character in value: 61'],
    ['a=x\\y', 'invalid field selector: invalid escape sequence: \\y'],
    ['a=x\\', 'invalid field selector: invalid escape sequence: \\'],
  ];
  for (const [input, message] of cases) {
    test(JSON.stringify(input), () => {
      assert.throws(
        () => parseFieldSelector(input),
        (e: unknown) =>
          e instanceof SelectorError && e.code === 'DKC_API_FIELD_SELECTOR_SYNTAX' && e.message === message,
        `expected ${message}`,
      );
    });
  }

  test('unsupported field labels', () => {
    const reqs = parseFieldSelector('metadata.name=x,spec.unschedulable=true');
    assert.doesNotThrow(() => checkSupportedFields(reqs, ['metadata.name', 'spec.unschedulable']));
    assert.throws(
      () => checkSupportedFields(reqs, new Set(['metadata.name', 'metadata.namespace'])),
      (e: unknown) =>
        e instanceof SelectorError &&
        e.code === 'DKC_API_FIELD_LABEL_NOT_SUPPORTED' &&
        e.message === 'field label not supported: spec.unschedulable',
    );
  });
});

describe('field value escaping', () => {
  for (const raw of ['', 'plain', 'a,b', 'a=b', 'a\\b', '\\,=\\', 'x,=,y']) {
    test(`round trip ${JSON.stringify(raw)}`, () => {
      assert.equal(unescapeFieldValue(escapeFieldValue(raw)), raw);
      assert.deepEqual(parseFieldSelector(`k=${escapeFieldValue(raw)}`), [f('k', '=', raw)]);
    });
  }
  test('canonical string form', () => {
    assert.equal(fieldSelectorString([f('a', '=', 'x,y'), f('b', '!=', '')]), 'a=x\\,y,b!=');
  });
});
